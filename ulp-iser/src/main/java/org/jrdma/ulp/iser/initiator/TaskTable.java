package org.jrdma.ulp.iser.initiator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The session's commands: those on the wire by ITT (at most {@code cmdsMax}, open-iscsi's cmds_max) and those
 * waiting, in submission order, for a slot, the command window or a connection. ITTs come from a counter that
 * skips the reserved 0xffffffff and tags still in use. Not thread-safe: the session's lock guards it.
 */
final class TaskTable {
    private static final int RESERVED_ITT = 0xffffffff;
    private final int cmdsMax;
    private final Map<Integer, IserTask> running = new HashMap<>();
    private final Deque<IserTask> waiting = new ArrayDeque<>();
    private int nextItt = 1;

    TaskTable(int cmdsMax) {
        this.cmdsMax = cmdsMax;
    }

    void enqueue(IserTask t) {
        waiting.addLast(t);
    }

    /** The next waiting task if a slot is free (not yet removed: {@link #start} does). */
    IserTask nextReady() {
        return running.size() < cmdsMax ? waiting.peekFirst() : null;
    }

    /** Takes a waiting task out (it failed before going on the wire). */
    void removeWaiting(IserTask t) {
        waiting.remove(t);
    }

    /** Moves the head of the queue onto the wire under a fresh ITT. */
    int start(IserTask t) {
        waiting.remove(t);
        int itt = allocateItt();
        running.put(itt, t);
        return itt;
    }

    /** A non-command PDU's tag (NOP-Out, Logout): fresh and not in the command table. */
    int allocateItt() {
        while (nextItt == RESERVED_ITT || running.containsKey(nextItt)) {
            nextItt++;
        }
        return nextItt++;
    }

    IserTask finish(int itt) {
        return running.remove(itt);
    }

    /** The connection is gone: everything on the wire waits again, ahead of the queue and in its order. */
    void requeueRunning() {
        List<IserTask> sent = new ArrayList<>(running.values());
        sent.sort((a, b) -> Integer.compareUnsigned(a.itt, b.itt));
        running.clear();
        for (int i = sent.size() - 1; i >= 0; i--) {
            sent.get(i).release();
            waiting.addFirst(sent.get(i));
        }
    }

    /** Removes and returns every task (to fail them). */
    List<IserTask> drain() {
        List<IserTask> all = new ArrayList<>(running.values());
        all.addAll(waiting);
        all.forEach(IserTask::release);
        running.clear();
        waiting.clear();
        return all;
    }

    /** The command on the wire longest past {@code timeoutNanos}, or null. */
    IserTask oldestOverdue(long now, long timeoutNanos) {
        IserTask oldest = null;
        for (IserTask t : running.values()) {
            if (now - t.sentAt > timeoutNanos && (oldest == null || t.sentAt - oldest.sentAt < 0)) {
                oldest = t;
            }
        }
        return oldest;
    }

    /** Takes every command of {@code lun} off the wire (a LU RESET ended them), in ITT order. */
    List<IserTask> finishLun(int lun) {
        List<IserTask> out = new ArrayList<>();
        running.values().removeIf(t -> t.lun() == lun && out.add(t));
        out.sort((a, b) -> Integer.compareUnsigned(a.itt, b.itt));
        return out;
    }

    /** Whether {@code t} is on the wire (under the ITT it went out with). */
    boolean isRunning(IserTask t) {
        return running.get(t.itt) == t;
    }

    /** A command stopped by task management goes again first. */
    void requeueFirst(IserTask t) {
        waiting.addFirst(t);
    }

    int running() {
        return running.size();
    }

    int waiting() {
        return waiting.size();
    }
}
