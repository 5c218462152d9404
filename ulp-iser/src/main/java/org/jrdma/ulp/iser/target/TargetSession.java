package org.jrdma.ulp.iser.target;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;

/**
 * One iSCSI session ({@code struct iscsit_session}): what its login negotiated, its connections, the
 * session-wide command window, the tasks in progress by ITT, and what it moved. A discovery session has no
 * portal group and no LUNs.
 */
final class TargetSession {
    private final SessionParams params;
    private final PortalGroup group;
    private final ScsiExecutor luns;
    private final CmdSnWindow window;
    private final Set<TargetConnection> connections = new CopyOnWriteArraySet<>();
    private final Map<Integer, ScsiTaskRunner> tasks = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LongAdder commands = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();

    TargetSession(SessionParams params, PortalGroup group, int window) {
        this.params = params;
        this.group = group;
        this.luns = group == null ? null : group.luns(params.initiatorName());
        this.window = new CmdSnWindow(params.expCmdSn(), window);
    }

    SessionParams params() {
        return params;
    }

    int tsih() {
        return params.tsih();
    }

    boolean discovery() {
        return params.sessionType() == SessionParams.SessionType.DISCOVERY;
    }

    /** The LUNs the initiator sees; null in a discovery session. */
    ScsiExecutor luns() {
        return luns;
    }

    PortalGroup group() {
        return group;
    }

    CmdSnWindow window() {
        return window;
    }

    /** Whether a new login of this ISID + InitiatorName to this target replaces this session (ERL 0). */
    boolean reinstatedBy(SessionParams login) {
        return params.isid() == login.isid() && params.initiatorName().equals(login.initiatorName())
                && java.util.Objects.equals(params.targetName(), login.targetName())
                && params.sessionType() == login.sessionType();
    }

    boolean add(TargetConnection c) {
        if (closed.get()) {
            return false;
        }
        connections.add(c);
        return true;
    }

    /** Removes a connection that went down; returns true when it was the last one (the session ends). */
    boolean remove(TargetConnection c) {
        connections.remove(c);
        return connections.isEmpty();
    }

    Set<TargetConnection> connections() {
        return connections;
    }

    /** Registers a task by ITT; false when one with that ITT is in progress (the initiator reused a tag). */
    boolean start(ScsiTaskRunner task) {
        return tasks.putIfAbsent(task.itt(), task) == null;
    }

    void finished(ScsiTaskRunner task) {
        tasks.remove(task.itt(), task);
    }

    ScsiTaskRunner task(int itt) {
        return tasks.get(itt);
    }

    List<ScsiTaskRunner> tasks() {
        return new ArrayList<>(tasks.values());
    }

    void executed(int dataIn, int dataOut) {
        commands.increment();
        bytesRead.add(dataIn);
        bytesWritten.add(dataOut);
    }

    boolean closed() {
        return closed.get();
    }

    /**
     * Ends the session (logout, last connection lost, reinstatement, runtime closed): held commands are
     * forgotten, tasks aborted (each frees its buffer when its pending stage ends), connections closed.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        window.clear();
        tasks().forEach(ScsiTaskRunner::abort);
        connections.forEach(TargetConnection::close);
    }

    SessionInfo info() {
        return new SessionInfo(params.initiatorName(), params.targetName(), discovery(), params.tsih(),
                params.isid(), connections.stream().map(TargetConnection::remoteAddress).toList(), commands.sum(),
                bytesRead.sum(), bytesWritten.sum());
    }
}
