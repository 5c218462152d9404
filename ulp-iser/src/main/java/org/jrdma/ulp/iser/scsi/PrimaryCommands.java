package org.jrdma.ulp.iser.scsi;

import java.util.Set;

/**
 * The small SPC-4 commands (LIO target_core_spc.c): TEST UNIT READY, REQUEST SENSE, REPORT LUNS, and START STOP
 * UNIT (which a LUN without a medium to spin accepts).
 */
final class PrimaryCommands {
    private PrimaryCommands() {
    }

    /** Always ready: no unit attentions are kept. */
    static int testUnitReady(Command c) {
        return 0;
    }

    /**
     * REQUEST SENSE (SPC-4 6.39): nothing is pending (sense is returned with the CHECK CONDITION itself), so NO
     * SENSE; for a LUN that does not exist, LOGICAL UNIT NOT SUPPORTED as parameter data. DESC=1 (descriptor
     * format) is refused as LIO does.
     */
    static int requestSense(Command c) throws CheckCondition {
        if (c.cdb.bit(1, 0)) {
            throw CheckCondition.cdbField(1, 0);
        }
        Sense sense = c.lun == null ? Sense.LOGICAL_UNIT_NOT_SUPPORTED : Sense.NO_SENSE;
        return c.respond(sense.fixed(), c.cdb.u8(4));
    }

    /** START STOP UNIT: START/LOEJ/IMMED accepted; a POWER CONDITION other than START_VALID is refused. */
    static int startStopUnit(Command c) throws CheckCondition {
        if ((c.cdb.u8(4) & 0xf0) != 0) {
            throw CheckCondition.cdbField(4, 7);
        }
        return 0;
    }

    /** SELECT REPORT codes (SPC-4 table 284): all, well known only, all again (we have no well known LUNs). */
    private static final Set<Integer> SELECT_REPORT = Set.of(0x00, 0x01, 0x02);

    /**
     * REPORT LUNS (SPC-4 6.33): the table's LUNs in single-level format; an empty table reports LUN 0 (SPC-4:
     * LUN 0 is always accessible, LIO's virtual LUN 0).
     */
    static int reportLuns(Command c) throws CheckCondition {
        int select = c.cdb.u8(2);
        if (!SELECT_REPORT.contains(select)) {
            throw CheckCondition.cdbField(2, -1);
        }
        var numbers = c.table.luns().keySet();
        int count = select == 0x01 ? 0 : Math.max(1, numbers.size());
        byte[] b = new byte[8 + 8 * count];
        VpdPage.put(b, 0, 4, 8L * count);
        int at = 8;
        if (count > 0 && numbers.isEmpty()) {
            at += 8; // LUN 0: all zero bytes
        }
        for (int lun : select == 0x01 ? Set.<Integer>of() : numbers) {
            VpdPage.put(b, at, 8, LunTable.encodeLun(lun));
            at += 8;
        }
        return c.respond(b, (int) Math.min(Integer.MAX_VALUE, c.cdb.u32(6)));
    }
}
