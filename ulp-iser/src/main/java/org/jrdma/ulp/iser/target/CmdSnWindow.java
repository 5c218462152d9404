package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's command window (RFC 7143 section 4.2.2.1, LIO {@code iscsit_sequence_cmd}): non-immediate
 * commands are delivered in CmdSN order, one that arrives early waits for the gap to fill, and one outside
 * [ExpCmdSN, MaxCmdSN] (or a duplicate) is dropped. Immediate commands are delivered at once and do not advance
 * ExpCmdSN. MaxCmdSN = ExpCmdSN + window - 1. CmdSNs compare in serial number arithmetic (RFC 1982).
 */
final class CmdSnWindow {
    /** Enough for open-iscsi's default queue depth of 128 (node.session.cmds_max). */
    static final int DEFAULT_WINDOW = 128;

    /** What {@link #admit} did with a command. */
    enum Admission {
        /** Delivered (with any queued commands it unblocked). */
        DELIVERED,
        /** Inside the window but ahead of ExpCmdSN: held until the commands before it arrive. */
        QUEUED,
        /** Outside the window or a duplicate: dropped silently. */
        DROPPED
    }

    private final int window;
    private final Map<Integer, Runnable> early = new HashMap<>();
    private int expCmdSn;

    CmdSnWindow(int expCmdSn, int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window " + window);
        }
        this.expCmdSn = expCmdSn;
        this.window = window;
    }

    synchronized int expCmdSn() {
        return expCmdSn;
    }

    synchronized int maxCmdSn() {
        return expCmdSn + window - 1;
    }

    /** Commands held for a missing CmdSN. */
    synchronized int queued() {
        return early.size();
    }

    /**
     * Admits a command; {@code deliver} runs now (on the caller's thread, outside the lock, in CmdSN order
     * with whatever it unblocks) or later, when the command before it arrives.
     */
    Admission admit(int cmdSn, boolean immediate, Runnable deliver) {
        List<Runnable> ready = new ArrayList<>();
        Admission result;
        synchronized (this) {
            result = admitLocked(cmdSn, immediate, deliver, ready);
        }
        // Runs outside the lock: a delivery may send, and the response asks for ExpCmdSN/MaxCmdSN.
        ready.forEach(Runnable::run);
        return result;
    }

    private Admission admitLocked(int cmdSn, boolean immediate, Runnable deliver, List<Runnable> ready) {
        if (immediate) {
            ready.add(deliver);
            return Admission.DELIVERED;
        }
        int ahead = cmdSn - expCmdSn;
        if (ahead < 0 || ahead >= window || early.containsKey(cmdSn)) {
            return Admission.DROPPED;
        }
        if (ahead > 0) {
            early.put(cmdSn, deliver);
            return Admission.QUEUED;
        }
        ready.add(deliver);
        expCmdSn++;
        for (Runnable next = early.remove(expCmdSn); next != null; next = early.remove(expCmdSn)) {
            ready.add(next);
            expCmdSn++;
        }
        return Admission.DELIVERED;
    }

    /**
     * RFC 7143 11.5.1 b): an ABORT TASK names a task never seen whose RefCmdSN is inside the window and before the
     * TMF's own CmdSN: that CmdSN counts as received (a command lost on the way no longer holds those after it).
     * Returns whether it was in the window; the commands it unblocks run on the caller's thread.
     */
    boolean considerReceived(int refCmdSn, int tmfCmdSn) {
        List<Runnable> ready = new ArrayList<>();
        synchronized (this) {
            int ahead = refCmdSn - expCmdSn;
            if (ahead < 0 || ahead >= window || refCmdSn - tmfCmdSn >= 0 || early.containsKey(refCmdSn)) {
                return false;
            }
            admitLocked(refCmdSn, false, () -> { }, ready);
        }
        ready.forEach(Runnable::run);
        return true;
    }

    /** Forgets the held commands (the session ends). */
    synchronized void clear() {
        early.clear();
    }
}
