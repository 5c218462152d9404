package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.ulp.iser.IserIoBuffer;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.conn.IserTransportException;
import org.jrdma.ulp.iser.login.InitiatorLoginParams;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiOpcode;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LogoutReason;
import org.jrdma.ulp.iser.pdu.LogoutRequest;
import org.jrdma.ulp.iser.pdu.LogoutResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.NopOut;
import org.jrdma.ulp.iser.pdu.OtherHeader;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.ScsiResponse;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TaskMgmtResponse;

/**
 * One session of the initiator (open-iscsi's session + libiscsi's {@code iscsi_session}/{@code iscsi_conn},
 * ERL 0, one connection). Commands queue in {@link TaskTable} and go out while the target's window
 * ({@link CommandWindow}) and cmds_max allow. A lost connection puts the session in FAILED: what was on the wire
 * waits again, the session logs in anew with the same ISID and TSIH 0 (RFC 7143 6.3.5 session reinstatement:
 * the target drops the old session) until the replacement timeout; then waiting and new I/O fail.
 *
 * <p>One lock guards the state; PDUs are sent under it (so CmdSNs leave in order), callers' futures complete
 * outside it.
 */
final class InitiatorSession implements IserSession, ConnectionLogin.FullFeature {
    static final int RESERVED_TAG = 0xffffffff;
    /** How soon a failed connection is tried again (open-iscsi retries a reopen about once a second). */
    private static final long RECONNECT_MS = 200;
    /** open-iscsi's node.session.initial_login_retry_max as the guest's iscsiadm records it by default (4). */
    static final int INITIAL_LOGIN_TRIES = 4;

    private final Object lock = new Object();
    private final IserTransport transport;
    private final LoginFactory logins;
    private final InitiatorLoginParams spec;
    private final IserSessionOptions options;
    private final InetSocketAddress portal;
    private final int sid;
    private final ScheduledExecutorService timers;
    private final Runnable onFree;
    private final CommandWindow window = new CommandWindow();
    private final TaskTable tasks;
    private final NopPing ping;
    private final CompletableFuture<Void> loggedOut = new CompletableFuture<>();
    final AtomicLong reinstatements = new AtomicLong();
    final AtomicLong unexpectedPdus = new AtomicLong();
    final CommandTimer commandTimer;
    final TaskRecovery recovery;
    private volatile State state = State.FAILED;
    private volatile ScannedLuns luns = ScannedLuns.NONE;
    private IserConnection conn;
    private SessionParams params;
    private boolean loggingOut;
    private boolean expired;
    private ScheduledFuture<?> replacementTimer;

    InitiatorSession(IserTransport transport, LoginFactory logins, InitiatorLoginParams spec,
            IserSessionOptions options, InetSocketAddress portal, int sid, ScheduledExecutorService timers,
            Runnable onFree) {
        this.transport = transport;
        this.logins = logins;
        this.spec = spec;
        this.options = options;
        this.portal = portal;
        this.sid = sid;
        this.timers = timers;
        this.onFree = onFree;
        this.tasks = new TaskTable(options.cmdsMax());
        this.recovery = new TaskRecovery(tasks, options.commandTimeout());
        this.ping = new NopPing(options, timers, this::sendPing, this::pingTimedOut);
        this.commandTimer = new CommandTimer(options.commandTimeout(), timers, this::expireOverdue);
    }

    /** The command timer's tick: the error handler's next step ({@link TaskRecovery}); the tasks to fail. */
    private List<IserTask> expireOverdue(long now, long limit) {
        synchronized (lock) {
            return state == State.LOGGED_IN ? recovery.tick(now, limit, conn, window) : null;
        }
    }

    /** The first login and the LUN scan; the stage fails (and the session is FREE) if either does. */
    CompletableFuture<IserSession> start() {
        return ConnectionLogin.retrying(() -> ConnectionLogin.run(transport, portal, logins.create(spec), this,
                options.loginTimeout()), timers, INITIAL_LOGIN_TRIES)
                .thenCompose(p -> LunScan.scan(this::submit))
                .handle((found, e) -> {
                    if (e != null) {
                        synchronized (lock) {
                            if (conn != null) {
                                conn.close();
                                conn = null;
                            }
                            free(State.FREE, "login failed");
                        }
                        throw new java.util.concurrent.CompletionException(LunScan.unwrap(e));
                    }
                    luns = new ScannedLuns(found);
                    return (IserSession) this;
                });
    }

    @Override
    public void attach(IserConnection c, SessionParams p, TargetSn login) {
        synchronized (lock) {
            if (state == State.FREE) { // logged out or closed while this login was under way
                c.close();
                return;
            }
            conn = c;
            params = p;
            window.reset(p.expCmdSn(), p.statSn(), login);
            state = State.LOGGED_IN;
            expired = false;
            if (replacementTimer != null) {
                replacementTimer.cancel(false);
            }
            ping.start();
            pump();
        }
    }

    /** Queues a task; it goes out when the window and cmds_max allow. */
    CompletableFuture<Integer> submit(IserTask t) {
        IserIoException refused = null;
        synchronized (lock) {
            if (state == State.FREE || loggingOut) {
                refused = new IserIoException(t.describe() + ": session " + sid + " is logged out");
            } else if (expired) {
                refused = replacementExpired();
            } else {
                tasks.enqueue(t);
                pump();
            }
        }
        if (refused != null) {
            t.done.completeExceptionally(refused);
        }
        return t.done;
    }

    /** Sends what may go now. Under the lock. */
    private void pump() {
        IserTask next;
        while (state == State.LOGGED_IN && window.open() && (next = tasks.nextReady()) != null) {
            IserTask t = next;
            try {
                t.attach(conn);
            } catch (IserTransportException e) {
                if (tasks.running() > 0 && t.dataLength() <= conn.buffers().maxLength()) {
                    return; // the pool is empty for now: a completion returns a buffer and pumps again
                }
                tasks.removeWaiting(t);
                IserIoException x = new IserIoException(t.describe() + ": " + e.getMessage(), e);
                timers.execute(() -> t.done.completeExceptionally(x));
                continue;
            }
            int itt = tasks.start(t);
            conn.sendUnsignaled(t.command(params, itt, window.nextCommand())); // the response tells it arrived
        }
    }

    @Override
    public void onPdu(IserConnection c, IserPdu pdu) {
        Runnable after = null;
        synchronized (lock) {
            if (c != conn) {
                return; // a PDU of a connection already given up
            }
            IscsiHeader h = pdu.pdu().header();
            if (h instanceof ScsiResponse r) {
                after = scsiResponse(r, pdu.pdu().data());
            } else if (h instanceof NopIn n) {
                nopIn(n);
            } else if (h instanceof LogoutResponse r) {
                logoutResponse(r);
            } else if (h instanceof Reject r) {
                after = reject(r, pdu.pdu().data());
            } else if (h instanceof TaskMgmtResponse r) {
                after = tmfResponse(r);
            } else if (h instanceof OtherHeader o && o.opcode() == IscsiOpcode.ASYNC_EVENT) {
                asyncEvent(AsyncEvent.of(o));
            } else {
                unexpectedPdus.incrementAndGet(); // R2T, Data-In, SNACK: not sent to an ERL 0 iSER initiator
            }
            pump();
        }
        if (after != null) {
            after.run();
        }
    }

    private Runnable scsiResponse(ScsiResponse r, byte[] data) {
        window.update(r.sn());
        window.acknowledge(r.sn().statSn());
        IserTask t = tasks.finish(r.itt());
        if (t == null) {
            unexpectedPdus.incrementAndGet();
            return null;
        }
        IserIoException error;
        try {
            error = t.complete(r, data);
        } catch (RuntimeException e) { // never out of the connection's handler
            t.release();
            error = new IserIoException(t.describe() + ": " + e, e);
        }
        IserIoException failure = error;
        return () -> {
            if (failure == null) {
                t.done.complete(t.transferred());
            } else {
                t.done.completeExceptionally(failure);
            }
        };
    }

    private void nopIn(NopIn n) {
        window.update(n.sn());
        if (n.itt() != RESERVED_TAG) {
            window.acknowledge(n.sn().statSn());
            ping.answered(n.itt());
        }
        if (n.ttt() != RESERVED_TAG) { // the target's ping: answer with its TTT (RFC 7143 11.18)
            conn.send(control(new NopOut(true, n.lun(), RESERVED_TAG, n.ttt(), window.immediate())));
        }
    }

    private void logoutResponse(LogoutResponse r) {
        window.update(r.sn());
        window.acknowledge(r.sn().statSn());
        conn.close();
    }

    /** Logout asked for: logged out, then reinstated (not a user logout); a dropped connection: recovery now. */
    private void asyncEvent(AsyncEvent e) {
        window.update(e.sn());
        window.acknowledge(e.sn().statSn());
        switch (e.kind()) {
            case REQUEST_LOGOUT -> conn.send(control(new LogoutRequest(true, LogoutReason.CLOSE_SESSION,
                    tasks.allocateItt(), 0, window.immediate())));
            case DROP_CONNECTION, DROP_ALL_CONNECTIONS -> conn.close();
            default -> unexpectedPdus.incrementAndGet();
        }
    }

    /** The answer to the error handler's ABORT TASK or LU RESET: re-issues, escalates, or fails commands. */
    private Runnable tmfResponse(TaskMgmtResponse r) {
        window.update(r.sn());
        window.acknowledge(r.sn().statSn());
        List<IserTask> failed = recovery.answered(r, System.nanoTime(), conn, window);
        if (failed == null) {
            unexpectedPdus.incrementAndGet();
            return null;
        }
        return () -> commandTimer.fail(failed);
    }

    /** A Reject's data segment is the rejected PDU's header: its ITT names the task (or TMF) that failed. */
    private Runnable reject(Reject r, byte[] data) {
        window.update(r.sn());
        window.acknowledge(r.sn().statSn());
        if (data.length < 20) {
            unexpectedPdus.incrementAndGet();
            return null;
        }
        int itt = ByteBuffer.wrap(data).getInt(16);
        List<IserTask> failed = new java.util.ArrayList<>();
        if (recovery.rejected(itt, System.nanoTime(), conn, window, failed)) {
            return () -> commandTimer.fail(failed);
        }
        IserTask t = tasks.finish(itt);
        if (t == null) {
            return null;
        }
        t.release();
        IserIoException e = new IserIoException(t.describe() + ": rejected by the target (" + r.reason() + ")");
        return () -> t.done.completeExceptionally(e);
    }

    private static IserPdu control(IscsiHeader h) {
        return new IserPdu(IserHeader.CONTROL, new IscsiPdu(h, new byte[0]));
    }

    /** Sends a NOP-Out ping (immediate, TTT reserved) and returns its ITT, or -1 when not logged in. */
    private int sendPing() {
        synchronized (lock) {
            if (state != State.LOGGED_IN || loggingOut) {
                return -1;
            }
            int itt = tasks.allocateItt();
            conn.send(control(new NopOut(true, 0, itt, RESERVED_TAG, window.immediate())));
            return itt;
        }
    }

    private void pingTimedOut() {
        IserConnection c;
        synchronized (lock) {
            c = conn;
        }
        if (c != null) {
            c.close(); // as iscsid's "ping timeout": the connection fails, recovery starts
        }
    }

    @Override
    public void onMalformed(IserConnection c, IscsiProtocolException error) {
        unexpectedPdus.incrementAndGet();
        c.close();
    }

    @Override
    public void onDisconnected(IserConnection c, String reason) {
        synchronized (lock) {
            if (c != conn) {
                return;
            }
            conn = null;
            ping.stop();
            recovery.reset();
            if (loggingOut || state == State.FREE) {
                free(State.FREE, "session " + sid + " logged out");
                return;
            }
            state = State.FAILED;
            tasks.requeueRunning();
            long ms = options.replacementTimeout().toMillis();
            replacementTimer = timers.schedule(this::expire, ms, TimeUnit.MILLISECONDS);
            timers.schedule(this::reinstate, RECONNECT_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** One reinstatement attempt: same ISID, TSIH 0; tried again until logout. */
    private void reinstate() {
        InitiatorLoginParams again;
        synchronized (lock) {
            if (state != State.FAILED || loggingOut) {
                return;
            }
            again = new InitiatorLoginParams(spec.initiatorName(), spec.initiatorAlias(), spec.targetName(),
                    spec.sessionType(), spec.isid(), 0, window.cmdSn(), spec.chap(), spec.proposals());
        }
        ConnectionLogin.run(transport, portal, logins.create(again), this, options.loginTimeout())
                .whenComplete((p, e) -> {
                    if (e == null) {
                        reinstatements.incrementAndGet();
                    } else {
                        timers.schedule(this::reinstate, RECONNECT_MS * 5, TimeUnit.MILLISECONDS);
                    }
                });
    }

    private void expire() {
        List<IserTask> failed;
        synchronized (lock) {
            if (state != State.FAILED || expired) {
                return;
            }
            expired = true;
            failed = tasks.drain();
        }
        IserIoException e = replacementExpired();
        failed.forEach(t -> t.done.completeExceptionally(e));
    }

    private IserIoException replacementExpired() {
        return new IserIoException("session " + sid + " to " + spec.targetName() + " failed: replacement timeout "
                + CommandTimer.words(options.replacementTimeout()) + " expired");
    }

    @Override
    public CompletionStage<Void> logout() {
        IserConnection c;
        synchronized (lock) {
            if (state != State.LOGGED_IN || loggingOut) {
                if (!loggingOut) {
                    free(State.FREE, "session " + sid + " logged out");
                }
                return loggedOut;
            }
            loggingOut = true;
            c = conn;
            c.send(control(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, tasks.allocateItt(), 0,
                    window.immediate())));
        }
        timers.schedule(c::close, options.logoutTimeout().toMillis(), TimeUnit.MILLISECONDS);
        return loggedOut;
    }

    /** Ends the session: every task fails with {@code why}. Under the lock (or before any connection). */
    private void free(State to, String why) {
        state = to;
        loggingOut = false;
        ping.stop();
        commandTimer.stop();
        if (replacementTimer != null) {
            replacementTimer.cancel(false);
        }
        List<IserTask> failed = tasks.drain();
        IserIoException e = new IserIoException(why);
        onFree.run();
        timers.execute(() -> {
            failed.forEach(t -> t.done.completeExceptionally(e));
            loggedOut.complete(null);
        });
    }

    @Override
    public void close() {
        try {
            logout().toCompletableFuture().get(options.logoutTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            synchronized (lock) {
                if (conn != null) {
                    conn.close();
                }
                free(State.FREE, "session " + sid + " closed");
            }
        }
    }

    @Override
    public CompletableFuture<Void> read(int lun, long lba, int blocks, ByteBuffer dst) {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("READ into a read-only buffer");
        }
        ByteBuffer range = luns.callerBytes(lun, blocks, dst);
        return block(IserTask.dataIn(lun, ScsiCdb.read16(lba, blocks), range, true), dst);
    }

    @Override
    public CompletableFuture<Void> write(int lun, long lba, int blocks, ByteBuffer src) {
        ByteBuffer range = luns.callerBytes(lun, blocks, src);
        return block(IserTask.dataOut(lun, ScsiCdb.write16(lba, blocks), range), src);
    }

    @Override
    public CompletableFuture<Void> read(int lun, long lba, int blocks, IserIoBuffer dst, int offset) {
        return registered(true, lun, ScsiCdb.read16(lba, blocks), blocks, dst, offset);
    }

    @Override
    public CompletableFuture<Void> write(int lun, long lba, int blocks, IserIoBuffer src, int offset) {
        return registered(false, lun, ScsiCdb.write16(lba, blocks), blocks, src, offset);
    }

    private CompletableFuture<Void> registered(boolean read, int lun, byte[] cdb, int blocks, IserIoBuffer b, int off) {
        long bytes = (long) blocks * luns.info(lun).blockSize();
        if (blocks < 1) {
            throw new IllegalArgumentException(blocks + " blocks");
        }
        RegisteredMemory m = RegisteredMemory.of(this, b);
        // the memory is done with before the caller hears of it (a close right after then deregisters at once)
        return submit(IserTask.registered(lun, cdb, read, m, off, bytes)).whenComplete((n, x) -> m.end())
                .thenAccept(n -> { });
    }

    @Override
    public IserIoBuffer allocateBuffer(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("an I/O buffer of " + length + " bytes");
        }
        return new RegisteredMemory(this, ByteBuffer.allocateDirect(length));
    }

    @Override
    public IserIoBuffer registerBuffer(ByteBuffer memory) {
        return new RegisteredMemory(this, memory);
    }

    /** The caller's position advances by the bytes moved once the command succeeded. */
    private CompletableFuture<Void> block(IserTask t, ByteBuffer callers) {
        return submit(t).thenAccept(n -> callers.position(callers.position() + n));
    }

    @Override
    public CompletableFuture<Void> flush(int lun) {
        luns.info(lun);
        return submit(IserTask.noData(lun, ScsiCdb.synchronizeCache10())).thenAccept(n -> { });
    }

    @Override
    public List<Integer> luns() {
        return luns.numbers();
    }

    @Override
    public long capacity(int lun) {
        return luns.info(lun).blocks();
    }

    @Override
    public int blockSize(int lun) {
        return luns.info(lun).blockSize();
    }

    @Override
    public String targetName() {
        return spec.targetName();
    }

    @Override
    public InetSocketAddress portal() {
        return portal;
    }

    @Override
    public int sid() {
        return sid;
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public int queueDepth() {
        return options.cmdsMax();
    }

    @Override
    public int portalGroupTag() {
        synchronized (lock) {
            return params == null ? 1 : params.targetPortalGroupTag();
        }
    }

    /** Commands that went past the command timeout (each began an error handler escalation). */
    long commandTimeouts() {
        synchronized (lock) {
            return recovery.count(TaskRecovery.Step.ABORT_TASK);
        }
    }

    long pingsAnswered() {
        return ping.answered();
    }

    /** Commands on the wire and waiting (tests: the window holds them). */
    int[] taskCounts() {
        synchronized (lock) {
            return new int[] {tasks.running(), tasks.waiting()};
        }
    }
}
