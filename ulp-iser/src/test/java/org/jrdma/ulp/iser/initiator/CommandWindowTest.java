package org.jrdma.ulp.iser.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.ulp.iser.pdu.TargetSn;
import org.junit.jupiter.api.Test;

/** CmdSN window rules (RFC 7143 4.2.2.1) across the 32-bit wrap, and sense data in words. */
class CommandWindowTest {

    @Test
    void windowOpensClosesAndWraps() {
        CommandWindow w = new CommandWindow();
        w.reset(0xfffffffe, 7, new TargetSn(7, 0xfffffffe, 0xfffffffe)); // LIO: MaxCmdSN = ExpCmdSN at login
        assertEquals(8, w.expStatSn());
        assertTrue(w.open());
        assertEquals(0xfffffffe, w.nextCommand().cmdSn());
        assertFalse(w.open(), "CmdSN 0xffffffff is past MaxCmdSN 0xfffffffe");
        w.update(new TargetSn(8, 0xffffffff, 0x00000002)); // window across the wrap
        assertTrue(w.open());
        assertEquals(0xffffffff, w.nextCommand().cmdSn());
        assertEquals(0, w.nextCommand().cmdSn());
        assertEquals(1, w.nextCommand().cmdSn());
        assertEquals(2, w.nextCommand().cmdSn());
        assertFalse(w.open());
        w.update(new TargetSn(9, 3, 1)); // MaxCmdSN < ExpCmdSN - 1: invalid, ignored
        assertEquals(2, w.maxCmdSn());
        w.update(new TargetSn(9, 3, 2)); // MaxCmdSN = ExpCmdSN - 1: closed, valid
        assertFalse(w.open());
        w.update(new TargetSn(9, 3, 0x00000001)); // older: ignored
        assertEquals(2, w.maxCmdSn());
        w.acknowledge(9);
        w.acknowledge(8); // a late lower StatSN does not move ExpStatSN back
        assertEquals(10, w.expStatSn());
        assertEquals(3, w.immediate().cmdSn(), "immediate PDUs carry the next CmdSN without taking it");
        assertEquals(3, w.cmdSn());
    }

    @Test
    void senseInFixedAndDescriptorFormat() {
        byte[] fixed = new byte[2 + 18];
        fixed[1] = 18;
        fixed[2] = 0x70;
        fixed[2 + 2] = 0x05;
        fixed[2 + 12] = 0x24;
        assertEquals("ILLEGAL REQUEST: INVALID FIELD IN CDB", ScsiSense.parse(fixed).describe());
        byte[] descriptor = {0, 8, 0x72, 0x06, 0x29, 0x00, 0, 0, 0, 0};
        ScsiSense ua = ScsiSense.parse(descriptor);
        assertEquals(6, ua.senseKey());
        assertEquals("UNIT ATTENTION: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED", ua.describe());
        assertEquals("MEDIUM ERROR: ASC 0x99 ASCQ 0x01", new ScsiSense(3, 0x99, 0x01).describe());
        assertEquals(ScsiSense.NONE, ScsiSense.parse(new byte[] {0, 40, 0x70}), "a SenseLength past the data");
        assertEquals("TASK SET FULL", ScsiSense.statusName(0x28));
    }

    @Test
    void lunAddressing() {
        assertEquals(0x0005_0000_0000_0000L, ScsiCdb.lunField(5));
        assertEquals(5, ScsiCdb.lunOf(ScsiCdb.lunField(5)));
        assertEquals(300, ScsiCdb.lunOf(ScsiCdb.lunField(300)));
        assertEquals(-1, ScsiCdb.lunOf(0x8000_0000_0000_0000L));
    }
}
