package org.jrdma.ulp.iser.scsi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The vital product data pages (SPC-4 7.8, SBC-3 6.6), one constant per page: its code and how its payload is
 * built. The 4-byte page header (device type, page code, page length) is added by {@link #build}.
 */
enum VpdPage {
    SUPPORTED_PAGES(0x00) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            VpdPage[] pages = values();
            byte[] b = new byte[pages.length];
            for (int i = 0; i < pages.length; i++) {
                b[i] = (byte) pages[i].code;
            }
            return b;
        }
    },
    UNIT_SERIAL_NUMBER(0x80) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            // null terminated, as LIO's spc_emulate_evpd_80 sends it
            byte[] serial = lun.unitSerial().getBytes(StandardCharsets.US_ASCII);
            return java.util.Arrays.copyOf(serial, serial.length + 1);
        }
    },
    DEVICE_IDENTIFICATION(0x83) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            return DeviceIdentification.designators(lun, port);
        }
    },
    BLOCK_LIMITS(0xb0) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            byte[] b = new byte[0x3c];
            b[0] = 0x01; // WSNZ: WRITE SAME with NUMBER OF LOGICAL BLOCKS 0 is refused
            put(b, 2, 2, 1); // optimal transfer length granularity: 1 block
            put(b, 4, 4, BlockCommands.MAX_TRANSFER_BLOCKS);
            put(b, 8, 4, BlockCommands.MAX_TRANSFER_BLOCKS); // optimal transfer length
            if (lun.backstore().thinProvisioned()) {
                put(b, 16, 4, Unmap.MAX_LBA_COUNT);
                put(b, 20, 4, Unmap.MAX_DESCRIPTORS);
                // OPTIMAL UNMAP GRANULARITY: what a discard frees whole - a ramdisk chunk, a file system block
                int granularity = lun.backstore() instanceof RamdiskBackstore ? RamdiskBackstore.CHUNK : 4096;
                put(b, 24, 4, granularity / lun.blockSize());
            }
            put(b, 32, 8, BlockCommands.MAX_WRITE_SAME_BLOCKS);
            return b;
        }
    },
    BLOCK_DEVICE_CHARACTERISTICS(0xb1) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            byte[] b = new byte[0x3c];
            // MEDIUM ROTATION RATE 1: non-rotating (ramdisk); 0: not reported (a file on unknown media)
            put(b, 0, 2, lun.backstore() instanceof RamdiskBackstore ? 1 : 0);
            return b;
        }
    },
    LOGICAL_BLOCK_PROVISIONING(0xb2) {
        @Override
        byte[] payload(ScsiLun lun, TargetPort port) {
            byte[] b = new byte[4];
            if (lun.backstore().thinProvisioned()) {
                b[1] = (byte) (0x80 | 0x40 | 0x20 | 0x04); // LBPU, LBPWS, LBPWS10, LBPRZ
                b[2] = 0x02; // provisioning type: thin
            }
            return b;
        }
    };

    final int code;

    VpdPage(int code) {
        this.code = code;
    }

    abstract byte[] payload(ScsiLun lun, TargetPort port);

    /** The page with its header. */
    byte[] build(ScsiLun lun, TargetPort port) {
        byte[] p = payload(lun, port);
        ByteArrayOutputStream out = new ByteArrayOutputStream(p.length + 4);
        out.write(Inquiry.DISK);
        out.write(code);
        out.write(p.length >>> 8);
        out.write(p.length);
        out.writeBytes(p);
        return out.toByteArray();
    }

    static VpdPage of(int code) {
        for (VpdPage p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }

    /** Big-endian {@code width}-byte value at {@code offset}. */
    static void put(byte[] b, int offset, int width, long value) {
        for (int i = width - 1; i >= 0; i--) {
            b[offset + i] = (byte) value;
            value >>>= 8;
        }
    }
}
