package org.jrdma.ulp.iser.scsi;

import java.nio.charset.StandardCharsets;

/**
 * INQUIRY (SPC-4 6.6): the standard data (LIO's spc_emulate_inquiry_std layout: SPC-4 version, response data
 * format 2, CMDQUE, vendor, product = backstore name as targetcli's model alias, revision, four version
 * descriptors) and the dispatch to {@link VpdPage}. A LUN that does not exist answers peripheral qualifier 011b
 * with device type 1Fh.
 */
final class Inquiry {
    static final String VENDOR = "JRDMA";
    static final String REVISION = "1.0";
    static final int STANDARD_LENGTH = 96;
    /** Peripheral qualifier 000b, device type 00h (direct access block device). */
    static final int DISK = 0x00;
    /** Peripheral qualifier 011b, device type 1Fh: no logical unit here. */
    static final int NO_LUN = 0x7f;
    /** Version descriptors (SPC-4 table 148 codes): SAM-5, iSCSI, SPC-4, SBC-3. */
    private static final int[] VERSION_DESCRIPTORS = {0x00a0, 0x0960, 0x0460, 0x04c0};

    private Inquiry() {
    }

    static int execute(Command c) throws CheckCondition {
        Cdb cdb = c.cdb;
        if (cdb.bit(1, 1)) {
            throw CheckCondition.cdbField(1, 1); // CMDDT: obsolete, SPC-4 says INVALID FIELD IN CDB
        }
        int allocation = cdb.u16(3);
        int page = cdb.u8(2);
        if (!cdb.bit(1, 0)) {
            if (page != 0) {
                throw CheckCondition.cdbField(2, -1);
            }
            return c.respond(standard(c.lun), allocation);
        }
        if (c.lun == null) {
            return c.respond(new byte[] {(byte) NO_LUN, (byte) page, 0, 0}, allocation);
        }
        VpdPage vpd = VpdPage.of(page);
        if (vpd == null) {
            throw CheckCondition.cdbField(2, -1);
        }
        return c.respond(vpd.build(c.lun, c.table.port()), allocation);
    }

    /** The standard data of a LUN, or of no LUN (null). */
    static byte[] standard(ScsiLun lun) {
        byte[] b = new byte[STANDARD_LENGTH];
        b[0] = (byte) (lun == null ? NO_LUN : DISK);
        b[2] = 0x06; // SPC-4
        b[3] = 0x02; // response data format 2
        b[4] = (byte) (STANDARD_LENGTH - 5);
        b[7] = 0x02; // CMDQUE: full task management model
        ascii(b, 8, 8, VENDOR);
        ascii(b, 16, 16, lun == null ? "" : lun.backstore().name());
        ascii(b, 32, 4, REVISION);
        for (int i = 0; i < VERSION_DESCRIPTORS.length; i++) {
            b[58 + 2 * i] = (byte) (VERSION_DESCRIPTORS[i] >>> 8);
            b[59 + 2 * i] = (byte) VERSION_DESCRIPTORS[i];
        }
        return b;
    }

    /** A space-padded ASCII field (SPC-4 4.4.1): non-printable characters become '_', too long is cut. */
    static void ascii(byte[] b, int offset, int width, String s) {
        byte[] text = s.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < width; i++) {
            byte ch = i < text.length ? text[i] : (byte) ' ';
            b[offset + i] = ch < 0x20 || ch > 0x7e ? (byte) '_' : ch;
        }
    }
}
