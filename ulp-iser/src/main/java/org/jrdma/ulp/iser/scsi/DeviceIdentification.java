package org.jrdma.ulp.iser.scsi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The designation descriptors of VPD page 0x83 (SPC-4 7.8.6), as LIO's spc_emulate_evpd_83 reports them: the
 * logical unit's NAA 6h and T10 vendor id designators, then - when the table knows its target port - the
 * relative target port, and the SCSI name strings of the target port and the target device (iSCSI).
 */
final class DeviceIdentification {
    private static final int CODE_SET_BINARY = 1;
    private static final int CODE_SET_ASCII = 2;
    private static final int CODE_SET_UTF8 = 3;
    private static final int PROTOCOL_ISCSI = 5;
    private static final int ASSOC_LU = 0;
    private static final int ASSOC_TARGET_PORT = 1;
    private static final int ASSOC_TARGET_DEVICE = 2;
    private static final int TYPE_T10_VENDOR = 1;
    private static final int TYPE_NAA = 3;
    private static final int TYPE_RELATIVE_PORT = 4;
    private static final int TYPE_SCSI_NAME = 8;

    private DeviceIdentification() {
    }

    static byte[] designators(ScsiLun lun, TargetPort port) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        descriptor(out, -1, CODE_SET_BINARY, ASSOC_LU, TYPE_NAA, lun.naaDesignator());
        // T10 vendor id as LIO builds it: vendor, then "<device name>:<unit serial>", null terminated
        byte[] vendor = new byte[8];
        Inquiry.ascii(vendor, 0, 8, Inquiry.VENDOR);
        byte[] id = (lun.backstore().name() + ":" + lun.unitSerial()).getBytes(StandardCharsets.US_ASCII);
        byte[] t10 = new byte[Math.min(255, vendor.length + id.length + 1)];
        System.arraycopy(vendor, 0, t10, 0, vendor.length);
        System.arraycopy(id, 0, t10, vendor.length, t10.length - vendor.length - 1);
        descriptor(out, -1, CODE_SET_ASCII, ASSOC_LU, TYPE_T10_VENDOR, t10);
        if (port != null) {
            byte[] rtpi = {0, 0, (byte) (port.relativePortId() >>> 8), (byte) port.relativePortId()};
            descriptor(out, PROTOCOL_ISCSI, CODE_SET_BINARY, ASSOC_TARGET_PORT, TYPE_RELATIVE_PORT, rtpi);
            descriptor(out, PROTOCOL_ISCSI, CODE_SET_UTF8, ASSOC_TARGET_PORT, TYPE_SCSI_NAME,
                    scsiName(port.scsiName()));
            descriptor(out, PROTOCOL_ISCSI, CODE_SET_UTF8, ASSOC_TARGET_DEVICE, TYPE_SCSI_NAME,
                    scsiName(port.targetName()));
        }
        return out.toByteArray();
    }

    /** One designation descriptor; protocol -1: PIV 0 (no protocol identifier). */
    private static void descriptor(ByteArrayOutputStream out, int protocol, int codeSet, int association,
                                   int type, byte[] designator) {
        out.write(((protocol < 0 ? 0 : protocol) << 4) | codeSet);
        out.write((protocol < 0 ? 0 : 0x80) | (association << 4) | type);
        out.write(0);
        out.write(designator.length);
        out.writeBytes(designator);
    }

    /** SCSI name string designator: UTF-8, null terminated, padded with nulls to a multiple of 4 bytes. */
    private static byte[] scsiName(String name) {
        byte[] s = name.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(252, (s.length + 1 + 3) & ~3);
        byte[] d = new byte[length];
        System.arraycopy(s, 0, d, 0, Math.min(s.length, length - 1));
        return d;
    }
}
