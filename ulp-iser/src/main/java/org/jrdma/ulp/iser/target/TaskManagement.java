package org.jrdma.ulp.iser.target;

import java.util.EnumMap;
import java.util.Map;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.TaskMgmtRequest;
import org.jrdma.ulp.iser.pdu.TaskMgmtResponse;
import org.jrdma.ulp.iser.pdu.TmfFunction;
import org.jrdma.ulp.iser.pdu.TmfResponse;

/**
 * Task management ({@code iscsit_handle_task_mgt_cmd} + {@code core_tmr_*}): ABORT TASK, LOGICAL UNIT RESET,
 * TARGET WARM RESET; the other functions answer "function not supported" (TASK REASSIGN needs ERL 2). An
 * aborted task sends no SCSI Response (RFC 7143 section 4.2.3.3 for ERL 0) and frees its buffer when the stage
 * it is in ends.
 */
final class TaskManagement {
    @FunctionalInterface
    private interface Function {
        TmfResponse run(TaskManagement tm, TargetConnection c, TaskMgmtRequest req);
    }

    private static final Map<TmfFunction, Function> FUNCTIONS = new EnumMap<>(TmfFunction.class);

    static {
        FUNCTIONS.put(TmfFunction.ABORT_TASK, TaskManagement::abortTask);
        FUNCTIONS.put(TmfFunction.LOGICAL_UNIT_RESET, TaskManagement::lunReset);
        FUNCTIONS.put(TmfFunction.TARGET_WARM_RESET, TaskManagement::targetWarmReset);
    }

    private final IserTargetRuntime runtime;

    TaskManagement(IserTargetRuntime runtime) {
        this.runtime = runtime;
    }

    void handle(TargetConnection c, IserPdu pdu) {
        TaskMgmtRequest req = (TaskMgmtRequest) pdu.pdu().header();
        Function f = FUNCTIONS.get(req.function());
        TmfResponse response = f == null ? TmfResponse.NOT_SUPPORTED : f.run(this, c, req);
        runtime.counters().increment(TargetCounter.TASK_MANAGEMENT);
        c.sendStatus(sn -> new TaskMgmtResponse(response, req.itt(), sn), new byte[0], 0);
    }

    /**
     * The task is in progress: aborted, FUNCTION COMPLETE. Never seen, with its RefCmdSN in the window before the
     * TMF's CmdSN (RFC 7143 11.5.1 b): that CmdSN counts as received, FUNCTION COMPLETE. Else TASK DOES NOT EXIST.
     */
    private TmfResponse abortTask(TargetConnection c, TaskMgmtRequest req) {
        ScsiTaskRunner task = c.session().task(req.referencedTaskTag());
        if (task == null) {
            return c.session().window().considerReceived(req.refCmdSn(), req.sn().cmdSn()) ? TmfResponse.COMPLETE
                    : TmfResponse.NO_TASK;
        }
        if (task.aborted()) {
            return TmfResponse.NO_TASK;
        }
        task.abort();
        return TmfResponse.COMPLETE;
    }

    /** Every task on the LUN, in every session of this portal group, aborted; then the LUN's own reset. */
    private TmfResponse lunReset(TargetConnection c, TaskMgmtRequest req) {
        TargetSession s = c.session();
        for (TargetSession other : runtime.sessionsOf(s.params().targetName())) {
            other.tasks().stream().filter(t -> t.lun() == req.lun()).forEach(ScsiTaskRunner::abort);
        }
        s.luns().lunReset(req.lun());
        return TmfResponse.COMPLETE;
    }

    /** As LIO: every task of the target aborted and the other sessions to it closed. */
    private TmfResponse targetWarmReset(TargetConnection c, TaskMgmtRequest req) {
        TargetSession s = c.session();
        for (TargetSession other : runtime.sessionsOf(s.params().targetName())) {
            if (other == s) {
                other.tasks().forEach(ScsiTaskRunner::abort);
            } else {
                other.close();
            }
        }
        return TmfResponse.COMPLETE;
    }
}
