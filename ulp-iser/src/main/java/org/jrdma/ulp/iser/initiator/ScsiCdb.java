package org.jrdma.ulp.iser.initiator;

import java.nio.ByteBuffer;
import org.jrdma.ulp.iser.pdu.ScsiCommand;

/** The CDBs the initiator sends (SBC-3, SPC-4), in the 16-byte field of the SCSI Command PDU. */
final class ScsiCdb {
    static final int INQUIRY = 0x12;
    static final int SYNCHRONIZE_CACHE_10 = 0x35;
    static final int READ_16 = 0x88;
    static final int WRITE_16 = 0x8a;
    static final int SERVICE_ACTION_IN_16 = 0x9e;
    static final int READ_CAPACITY_16 = 0x10;
    static final int REPORT_LUNS = 0xa0;
    static final int TEST_UNIT_READY = 0x00;

    private ScsiCdb() {
    }

    static byte[] read16(long lba, int blocks) {
        return rw16(READ_16, lba, blocks);
    }

    static byte[] write16(long lba, int blocks) {
        return rw16(WRITE_16, lba, blocks);
    }

    private static byte[] rw16(int opcode, long lba, int blocks) {
        ByteBuffer b = cdb(opcode);
        b.putLong(2, lba).putInt(10, blocks);
        return b.array();
    }

    static byte[] inquiry(int allocationLength) {
        ByteBuffer b = cdb(INQUIRY);
        b.putShort(3, (short) allocationLength);
        return b.array();
    }

    static byte[] readCapacity16(int allocationLength) {
        ByteBuffer b = cdb(SERVICE_ACTION_IN_16);
        b.put(1, (byte) READ_CAPACITY_16).putInt(10, allocationLength);
        return b.array();
    }

    static byte[] reportLuns(int allocationLength) {
        ByteBuffer b = cdb(REPORT_LUNS);
        b.putInt(6, allocationLength);
        return b.array();
    }

    /** SYNCHRONIZE CACHE(10) with LBA 0 and 0 blocks: the whole LUN. */
    static byte[] synchronizeCache10() {
        return cdb(SYNCHRONIZE_CACHE_10).array();
    }

    static String name(byte[] cdb) {
        return switch (cdb[0] & 0xff) {
            case READ_16 -> "READ(16)";
            case WRITE_16 -> "WRITE(16)";
            case INQUIRY -> "INQUIRY";
            case SERVICE_ACTION_IN_16 -> "READ CAPACITY(16)";
            case REPORT_LUNS -> "REPORT LUNS";
            case SYNCHRONIZE_CACHE_10 -> "SYNCHRONIZE CACHE(10)";
            case TEST_UNIT_READY -> "TEST UNIT READY";
            default -> String.format("opcode 0x%02x", cdb[0] & 0xff);
        };
    }

    /** SAM-5 single-level peripheral addressing for LUNs below 256, flat space (0x40) up to 16383. */
    static long lunField(int lun) {
        return lun < 256 ? (long) lun << 48 : (0x4000L | lun) << 48;
    }

    /** The LUN of a REPORT LUNS entry (peripheral or flat addressing), or -1 for other address methods. */
    static int lunOf(long field) {
        int first = (int) (field >>> 48) & 0xffff;
        return switch (first >>> 14) {
            case 0 -> first >>> 8 == 0 ? first & 0xff : -1;
            case 1 -> first & 0x3fff;
            default -> -1;
        };
    }

    private static ByteBuffer cdb(int opcode) {
        ByteBuffer b = ByteBuffer.allocate(ScsiCommand.CDB_LENGTH);
        b.put(0, (byte) opcode);
        return b;
    }
}
