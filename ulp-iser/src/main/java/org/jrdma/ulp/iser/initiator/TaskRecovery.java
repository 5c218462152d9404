package org.jrdma.ulp.iser.initiator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.TaskMgmtRequest;
import org.jrdma.ulp.iser.pdu.TaskMgmtResponse;
import org.jrdma.ulp.iser.pdu.TmfFunction;
import org.jrdma.ulp.iser.pdu.TmfResponse;

/**
 * The SCSI error handler's escalation for a command past sd's timeout, as Linux's scsi_eh over libiscsi does it:
 * ABORT TASK ({@code iscsi_eh_abort}), then LOGICAL UNIT RESET ({@code iscsi_eh_device_reset}), then the
 * connection dropped ({@code iscsi_eh_session_reset}: ERL 0 recovery logs in again and re-issues). A step whose
 * TMF gets no response in its time, a failure response or a Reject goes on to the next. ABORT TASK succeeds with
 * FUNCTION COMPLETE only (TASK DOES NOT EXIST for a task we still wait for means the target lost it: libiscsi
 * escalates too); the aborted command, or every command of the reset LUN, is then re-issued (sd's retries), and
 * one that timed out more than {@link CommandTimer#MAX_RETRIES} times fails. One escalation at a time.
 *
 * <p>Not thread-safe: the session calls it under its lock, logged in, with its connection and window; the tasks
 * it returns are failed outside the lock.
 */
final class TaskRecovery {
    /** Where the handler is; the TMF timeouts are open-iscsi's abort_timeout and lu_reset_timeout. */
    enum Step {
        ABORT_TASK(TmfFunction.ABORT_TASK, Duration.ofSeconds(15)),
        LUN_RESET(TmfFunction.LOGICAL_UNIT_RESET, Duration.ofSeconds(30)),
        DROP_CONNECTION(null, Duration.ZERO);

        final TmfFunction function;
        final Duration timeout;

        Step(TmfFunction function, Duration timeout) {
            this.function = function;
            this.timeout = timeout;
        }

        Step next() {
            return values()[Math.min(ordinal() + 1, values().length - 1)];
        }
    }

    private record Pending(Step step, IserTask task, int tmfItt, long deadline) {
    }

    private final TaskTable tasks;
    private final Duration commandTimeout;
    private final Map<Step, Long> counts = new EnumMap<>(Step.class);
    private Pending pending;

    TaskRecovery(TaskTable tasks, Duration commandTimeout) {
        this.tasks = tasks;
        this.commandTimeout = commandTimeout;
    }

    /**
     * The command timer's tick: a step past its time escalates; else the oldest command past the timeout starts
     * an escalation. Returns the tasks to fail (past their retries), or null when no command is overdue.
     */
    List<IserTask> tick(long now, long timeoutNanos, IserConnection conn, CommandWindow window) {
        if (pending != null && pending.step == Step.ABORT_TASK && !tasks.isRunning(pending.task)) {
            pending = null; // its SCSI Response came after all: nothing to abort
        }
        if (pending != null) {
            return now - pending.deadline > 0 ? escalate(now, conn, window) : List.of();
        }
        IserTask t = tasks.oldestOverdue(now, timeoutNanos);
        if (t == null) {
            return null;
        }
        t.timeouts++;
        return begin(Step.ABORT_TASK, t, now, conn, window);
    }

    /** A TMF Response: null when it is not ours, else the tasks to fail. */
    List<IserTask> answered(TaskMgmtResponse r, long now, IserConnection conn, CommandWindow window) {
        if (pending == null || r.itt() != pending.tmfItt) {
            return null;
        }
        if (pending.step == Step.ABORT_TASK && !tasks.isRunning(pending.task)) {
            pending = null; // it completed before the abort (TASK DOES NOT EXIST then): done, as libiscsi
            return List.of();
        }
        if (r.response() != TmfResponse.COMPLETE) {
            return escalate(now, conn, window);
        }
        Pending done = pending;
        pending = null;
        List<IserTask> stopped = done.step == Step.ABORT_TASK ? single(tasks.finish(done.task.itt))
                : tasks.finishLun(done.task.lun());
        return requeueOrFail(stopped);
    }

    /** A Reject naming {@code itt}: if it is our TMF, the step failed (true). */
    boolean rejected(int itt, long now, IserConnection conn, CommandWindow window, List<IserTask> toFail) {
        if (pending == null || itt != pending.tmfItt) {
            return false;
        }
        toFail.addAll(escalate(now, conn, window));
        return true;
    }

    /** The connection is gone: the escalation ends with it (recovery re-issues everything). */
    void reset() {
        pending = null;
    }

    /** How many times each step was taken (ABORT TASK sent, LU RESET sent, connection dropped). */
    long count(Step step) {
        return counts.getOrDefault(step, 0L);
    }

    private List<IserTask> escalate(long now, IserConnection conn, CommandWindow window) {
        Pending p = pending;
        pending = null;
        return begin(p.step.next(), p.task, now, conn, window);
    }

    private List<IserTask> begin(Step step, IserTask t, long now, IserConnection conn, CommandWindow window) {
        counts.merge(step, 1L, Long::sum);
        if (step == Step.DROP_CONNECTION) {
            // the commands past their retries fail now; the connection's loss re-issues the others
            List<IserTask> failed = t.timeouts > CommandTimer.MAX_RETRIES ? single(tasks.finish(t.itt)) : List.of();
            failed.forEach(IserTask::release);
            conn.close(); // onDisconnected (maybe on this thread) requeues what is on the wire
            return failed;
        }
        int itt = tasks.allocateItt();
        boolean abort = step == Step.ABORT_TASK;
        TaskMgmtRequest tmf = new TaskMgmtRequest(true, step.function, ScsiCdb.lunField(t.lun()), itt,
                abort ? t.itt : 0xffffffff, window.immediate(), abort ? t.cmdSn : 0, 0);
        conn.send(new IserPdu(IserHeader.CONTROL, new IscsiPdu(tmf, new byte[0])));
        Duration limit = step.timeout.compareTo(commandTimeout) < 0 ? step.timeout : commandTimeout;
        pending = new Pending(step, t, itt, now + limit.toNanos());
        return List.of();
    }

    /** Stopped commands go again at the head of the queue, those past their retries fail. */
    private List<IserTask> requeueOrFail(List<IserTask> stopped) {
        List<IserTask> failed = new ArrayList<>();
        for (int i = stopped.size() - 1; i >= 0; i--) {
            IserTask t = stopped.get(i);
            t.release();
            if (t.timeouts > CommandTimer.MAX_RETRIES) {
                failed.add(t);
            } else {
                tasks.requeueFirst(t);
            }
        }
        return failed;
    }

    private static List<IserTask> single(IserTask t) {
        return t == null ? new ArrayList<>() : new ArrayList<>(List.of(t));
    }
}
