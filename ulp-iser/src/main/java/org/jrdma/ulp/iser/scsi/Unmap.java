package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * UNMAP (SBC-3 5.28) on a thin LUN: parses and validates the whole parameter list before discarding anything
 * (LIO sbc_execute_unmap's checks: list shorter than its header, too many descriptors, a range longer than
 * MAXIMUM UNMAP LBA COUNT, a range outside the LUN). A fully provisioned LUN does not support the command (LIO
 * without emulate_tpu).
 */
final class Unmap {
    /** MAXIMUM UNMAP LBA COUNT of VPD 0xb0. */
    static final long MAX_LBA_COUNT = 1L << 22;
    /** MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT of VPD 0xb0. */
    static final int MAX_DESCRIPTORS = 64;
    private static final int HEADER = 8;
    private static final int DESCRIPTOR = 16;

    private Unmap() {
    }

    static int execute(Command c) throws CheckCondition, IOException {
        if (!c.lun.backstore().thinProvisioned()) {
            throw new CheckCondition(Sense.INVALID_COMMAND_OPERATION_CODE);
        }
        if (c.cdb.bit(1, 0)) {
            throw CheckCondition.cdbField(1, 0); // ANCHOR: no anchored state
        }
        int listLength = c.cdb.u16(7);
        if (listLength == 0) {
            return 0;
        }
        if (listLength > c.edtl()) {
            throw CheckCondition.cdbField(7, -1); // LIO: overflow of a control CDB's data-out is refused
        }
        ByteBuffer list = c.dataOut();
        if (listLength < HEADER || list.remaining() < HEADER) {
            throw new CheckCondition(Sense.PARAMETER_LIST_LENGTH_ERROR);
        }
        int length = Math.min(listLength, list.remaining());
        long[][] ranges = ranges(c, list.limit(length));
        int bs = c.lun.blockSize();
        for (long[] r : ranges) {
            if (r[1] > 0) {
                c.lun.backstore().discard(r[0] * bs, r[1] * bs);
            }
        }
        return 0;
    }

    /** The validated (lba, blocks) descriptors of a parameter list (position 0, limit = list length). */
    private static long[][] ranges(Command c, ByteBuffer list) throws CheckCondition {
        int dataLength = Short.toUnsignedInt(list.getShort(0));
        int descriptorBytes = Short.toUnsignedInt(list.getShort(2));
        if (dataLength != 0 && dataLength + 2 < HEADER + descriptorBytes) {
            throw CheckCondition.parameterField(0); // UNMAP DATA LENGTH shorter than its descriptors
        }
        if (descriptorBytes % DESCRIPTOR != 0) {
            throw CheckCondition.parameterField(2);
        }
        if (descriptorBytes > list.limit() - HEADER) {
            throw new CheckCondition(Sense.PARAMETER_LIST_LENGTH_ERROR);
        }
        int count = descriptorBytes / DESCRIPTOR;
        if (count > MAX_DESCRIPTORS) {
            throw CheckCondition.parameterField(2);
        }
        long[][] ranges = new long[count][];
        for (int i = 0; i < count; i++) {
            int at = HEADER + i * DESCRIPTOR;
            long lba = list.getLong(at);
            long blocks = Integer.toUnsignedLong(list.getInt(at + 8));
            if (blocks > MAX_LBA_COUNT) {
                throw CheckCondition.parameterField(at + 8);
            }
            BlockCommands.checkRange(c, lba, blocks);
            ranges[i] = new long[] {lba, blocks};
        }
        return ranges;
    }
}
