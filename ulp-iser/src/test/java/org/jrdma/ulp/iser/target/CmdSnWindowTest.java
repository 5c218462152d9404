package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.ulp.iser.target.CmdSnWindow.Admission;
import org.junit.jupiter.api.Test;

/** The command window: order, early commands, drops, immediate commands, serial arithmetic at 2^32. */
class CmdSnWindowTest {
    final List<Integer> delivered = new ArrayList<>();

    Admission admit(CmdSnWindow w, int cmdSn, boolean immediate) {
        return w.admit(cmdSn, immediate, () -> delivered.add(cmdSn));
    }

    @Test
    void inOrderEarlyAndOutOfWindow() {
        CmdSnWindow w = new CmdSnWindow(10, 128);
        assertEquals(137, w.maxCmdSn());
        assertEquals(Admission.QUEUED, admit(w, 12, false));
        assertEquals(Admission.QUEUED, admit(w, 11, false));
        assertEquals(Admission.DROPPED, admit(w, 11, false), "a duplicate of a held command");
        assertEquals(List.of(), delivered);
        assertEquals(Admission.DELIVERED, admit(w, 10, false));
        assertEquals(List.of(10, 11, 12), delivered, "CmdSN order");
        assertEquals(13, w.expCmdSn());
        assertEquals(140, w.maxCmdSn());
        assertEquals(Admission.DROPPED, admit(w, 12, false), "already done");
        assertEquals(Admission.DROPPED, admit(w, 141, false), "past MaxCmdSN");
        assertEquals(Admission.QUEUED, admit(w, 140, false), "MaxCmdSN itself is in the window");
        assertEquals(1, w.queued());
    }

    /** RFC 7143 11.5.1 b): an ABORT TASK for a command never received fills its CmdSN's gap. */
    @Test
    void aLostCommandsCmdSnCountsAsReceivedOnAbort() {
        CmdSnWindow w = new CmdSnWindow(10, 128);
        assertEquals(Admission.QUEUED, admit(w, 11, false));
        assertEquals(false, w.considerReceived(10, 10), "RefCmdSN not before the TMF's CmdSN");
        assertEquals(false, w.considerReceived(9, 12), "before ExpCmdSN: done already");
        assertEquals(false, w.considerReceived(11, 12), "held, so received");
        assertEquals(true, w.considerReceived(10, 12));
        assertEquals(List.of(11), delivered, "the command held behind the gap runs");
        assertEquals(12, w.expCmdSn());
        assertEquals(false, w.considerReceived(140, 141), "past MaxCmdSN");
    }

    @Test
    void immediateCommandsGoAtOnceWithoutAdvancing() {
        CmdSnWindow w = new CmdSnWindow(5, 128);
        assertEquals(Admission.DELIVERED, admit(w, 5, true));
        assertEquals(Admission.DELIVERED, admit(w, 5, true));
        assertEquals(5, w.expCmdSn());
        assertEquals(List.of(5, 5), delivered);
    }

    @Test
    void serialNumberArithmeticAcrossTheWrap() {
        CmdSnWindow w = new CmdSnWindow(0xffff_fffe, 128);
        assertEquals(0x7d, w.maxCmdSn(), "0xfffffffe + 127 mod 2^32");
        assertEquals(Admission.QUEUED, admit(w, 0, false));
        assertEquals(Admission.QUEUED, admit(w, 0xffff_ffff, false));
        assertEquals(Admission.DELIVERED, admit(w, 0xffff_fffe, false));
        assertEquals(List.of(0xffff_fffe, 0xffff_ffff, 0), delivered);
        assertEquals(1, w.expCmdSn());
        assertEquals(Admission.DROPPED, admit(w, 0xffff_ffff, false), "before ExpCmdSN across the wrap");
    }

    @Test
    void clearForgetsHeldCommands() {
        CmdSnWindow w = new CmdSnWindow(1, 128);
        admit(w, 3, false);
        w.clear();
        admit(w, 1, false);
        admit(w, 2, false);
        assertEquals(List.of(1, 2), delivered);
    }
}
