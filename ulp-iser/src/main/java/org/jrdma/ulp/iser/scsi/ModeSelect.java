package org.jrdma.ulp.iser.scsi;

import java.nio.ByteBuffer;

/**
 * MODE SELECT(6) and (10) (SPC-4 6.9/6.10) as LIO's spc_emulate_modeselect: nothing is changeable, so the
 * command succeeds when the first mode page it carries equals the current one (what a tool that reads, edits
 * nothing and writes back sends) and is refused otherwise. PF must be 1, SP (save) is refused.
 */
final class ModeSelect {
    private ModeSelect() {
    }

    static int modeSelect6(Command c) throws CheckCondition {
        return execute(c, 4, c.cdb.u8(4), 3, 1);
    }

    static int modeSelect10(Command c) throws CheckCondition {
        return execute(c, 8, c.cdb.u16(7), 6, 2);
    }

    /**
     * @param header      mode parameter header length
     * @param length      PARAMETER LIST LENGTH of the CDB
     * @param descriptors where the header's BLOCK DESCRIPTOR LENGTH sits, and its width
     */
    private static int execute(Command c, int header, int length, int descriptors, int width)
            throws CheckCondition {
        if (!c.cdb.bit(1, 4)) {
            throw CheckCondition.cdbField(1, 4); // PF 0: vendor-specific pages
        }
        if (c.cdb.bit(1, 0)) {
            throw CheckCondition.cdbField(1, 0); // SP: nothing can be saved
        }
        if (length == 0) {
            return 0;
        }
        int lengthByte = c.cdb.format() == Cdb.Format.SIX ? 4 : 7;
        if (length > c.edtl()) {
            throw CheckCondition.cdbField(lengthByte, -1); // LIO: overflow of a control CDB's data-out
        }
        ByteBuffer list = c.dataOut();
        if (list.remaining() < length || length < header) {
            throw new CheckCondition(Sense.PARAMETER_LIST_LENGTH_ERROR);
        }
        int offset = header + (int) fieldOf(list, descriptors, width);
        if (length < offset + 2) {
            throw new CheckCondition(Sense.PARAMETER_LIST_LENGTH_ERROR);
        }
        int code = list.get(offset) & 0x3f;
        boolean subpageFormat = (list.get(offset) & 0x40) != 0;
        ModePage page = ModePage.of(code);
        if (page == null || subpageFormat) {
            throw CheckCondition.parameterField(offset);
        }
        byte[] current = page.build(c.lun, false);
        if (length < offset + current.length) {
            throw new CheckCondition(Sense.PARAMETER_LIST_LENGTH_ERROR);
        }
        for (int i = 0; i < current.length; i++) {
            if (list.get(offset + i) != current[i]) {
                throw CheckCondition.parameterField(offset + i);
            }
        }
        return 0;
    }

    private static long fieldOf(ByteBuffer b, int offset, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            v = (v << 8) | (b.get(offset + i) & 0xff);
        }
        return v;
    }
}
