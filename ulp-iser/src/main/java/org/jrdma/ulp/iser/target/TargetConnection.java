package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.login.SendTargetsText;
import org.jrdma.ulp.iser.login.TargetLogin;
import org.jrdma.ulp.iser.login.TargetLoginPolicy;
import org.jrdma.ulp.iser.pdu.Bhs;
import org.jrdma.ulp.iser.pdu.IscsiHeader;
import org.jrdma.ulp.iser.pdu.IscsiOpcode;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.NopIn;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.RejectReason;
import org.jrdma.ulp.iser.pdu.TargetSn;

/**
 * One iSCSI connection of the target ({@code struct iscsit_conn} + {@code struct isert_conn}): the login phase
 * (each Login Request to the {@link TargetLogin}), then the full feature phase, where each received PDU goes by
 * opcode through the table of its session type, after the session's {@link CmdSnWindow}. Owns the connection's StatSN: status PDUs take the next one as they are posted,
 * so StatSN increments in send order whatever order tasks end in.
 */
final class TargetConnection implements IserConnectionHandler {
    private static final Logger LOG = Logger.getLogger(TargetConnection.class.getName());
    private static final byte[] NO_DATA = new byte[0];
    private static final int CMD_SN = 24;

    /** How a full-feature PDU is handled, once the command window let it through. */
    @FunctionalInterface
    private interface Handler {
        void handle(TargetConnection c, IserPdu pdu);
    }

    private static final Map<IscsiOpcode, Handler> NORMAL = new EnumMap<>(IscsiOpcode.class);
    private static final Map<IscsiOpcode, Handler> DISCOVERY = new EnumMap<>(IscsiOpcode.class);

    static {
        NORMAL.put(IscsiOpcode.SCSI_CMD, TargetConnection::onScsiCommand);
        NORMAL.put(IscsiOpcode.SCSI_TMFUNC, TargetConnection::onTaskManagement);
        NORMAL.put(IscsiOpcode.NOOP_OUT, ControlRequests::nopOut);
        NORMAL.put(IscsiOpcode.TEXT, ControlRequests::text);
        NORMAL.put(IscsiOpcode.LOGOUT, ControlRequests::logout);
        DISCOVERY.put(IscsiOpcode.TEXT, NORMAL.get(IscsiOpcode.TEXT));
        DISCOVERY.put(IscsiOpcode.LOGOUT, NORMAL.get(IscsiOpcode.LOGOUT));
        // Everything else (Data-Out: iSER pulls write data by RDMA READ; SNACK: ERL 0; Login after login;
        // target opcodes) is a protocol error answered with a Reject.
    }

    private final IserTargetRuntime runtime;
    private final IserConnection conn;
    private final TargetLogin login;
    private final Object sendLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final TargetLoginPolicy policy;
    private volatile TargetSession session;
    private volatile SendTargetsText.Responder textResponder;
    private volatile long lastReceived = System.nanoTime();
    private volatile int pingTtt = Reject.RESERVED_TAG;
    private volatile long pingSentAt;
    /** The pinger dropped this connection (counted once; the disconnect follows). */
    private volatile boolean pingTimedOut;
    private int nextPingTtt;
    private int statSn;

    TargetConnection(IserTargetRuntime runtime, IserConnection conn, TargetLoginPolicy policy, TargetLogin login) {
        this.runtime = runtime;
        this.conn = conn;
        this.policy = policy;
        this.login = login;
    }

    IserConnection connection() {
        return conn;
    }

    TargetSession session() {
        return session;
    }

    IserTargetRuntime runtime() {
        return runtime;
    }

    InetSocketAddress remoteAddress() {
        return conn.remoteAddress();
    }

    @Override
    public void onPdu(IserConnection c, IserPdu pdu) {
        lastReceived = System.nanoTime();
        try {
            if (session == null) {
                onLogin(pdu);
            } else {
                dispatch(pdu);
            }
        } catch (RuntimeException e) {
            // A bug must not take the completion thread down: drop this connection only.
            LOG.log(Level.WARNING, "iSER target: " + pdu.pdu().opcode() + " from " + conn.remoteAddress(), e);
            runtime.counters().increment(TargetCounter.INTERNAL_ERRORS);
            close();
        }
    }

    @Override
    public void onMalformed(IserConnection c, IscsiProtocolException error) {
        runtime.counters().increment(TargetCounter.MALFORMED);
        if (session == null) {
            close(); // a login that does not decode ends the connection (RFC 7143 section 6.9)
        } else {
            sendReject(error.reason(), NO_DATA);
        }
    }

    @Override
    public void onDisconnected(IserConnection c, String reason) {
        closed.set(true);
        runtime.connectionGone(this);
    }

    private void onLogin(IserPdu pdu) {
        if (pdu.pdu().opcode() != IscsiOpcode.LOGIN) {
            runtime.counters().increment(TargetCounter.LOGINS_FAILED);
            close(); // only Login Requests before the full feature phase
            return;
        }
        LoginStep step = login.onRequest(pdu.pdu());
        switch (step.state()) {
            case CONTINUE -> send(step.reply());
            case FAILED -> {
                runtime.counters().increment(TargetCounter.LOGINS_FAILED);
                if (step.reply() == null) {
                    close();
                } else {
                    send(step.reply()).whenComplete((v, e) -> close());
                }
            }
            case FULL_FEATURE -> enterFullFeature(step);
        }
    }

    /** The final Login Response goes out with this session's command window; StatSN continues from it. */
    private void enterFullFeature(LoginStep step) {
        TargetSession s = runtime.attach(this, step.params());
        if (s == null) {
            runtime.counters().increment(TargetCounter.LOGINS_FAILED);
            close();
            return;
        }
        runtime.counters().increment(TargetCounter.LOGINS_OK);
        IscsiPdu reply = step.reply();
        synchronized (sendLock) {
            session = s;
            if (reply.header() instanceof LoginResponse r) {
                statSn = r.sn().statSn() + 1;
                TargetSn sn = new TargetSn(r.sn().statSn(), s.window().expCmdSn(), s.window().maxCmdSn());
                reply = new IscsiPdu(new LoginResponse(r.stages(), r.versionMax(), r.versionActive(), r.isid(),
                        r.tsih(), r.itt(), sn, r.status()), reply.ahs(), reply.data());
            } else {
                statSn = step.params().statSn() + 1;
            }
            send(reply);
        }
    }

    private void dispatch(IserPdu pdu) {
        TargetSession s = session;
        Handler handler = (s.discovery() ? DISCOVERY : NORMAL).get(pdu.pdu().opcode());
        if (handler == null) {
            reject(RejectReason.PROTOCOL_ERROR, pdu.pdu().header());
            return;
        }
        // Every request an initiator may send in the full feature phase carries CmdSN at bytes 24..27.
        Bhs bhs = pdu.pdu().bhs();
        int cmdSn = ByteBuffer.wrap(bhs.toByteArray()).getInt(CMD_SN);
        CmdSnWindow.Admission a = s.window().admit(cmdSn, bhs.immediate(), () -> {
            if (!s.closed()) {
                handler.handle(this, pdu);
            }
        });
        if (a == CmdSnWindow.Admission.DROPPED) {
            runtime.counters().increment(TargetCounter.OUT_OF_WINDOW);
        }
    }

    private void onScsiCommand(IserPdu pdu) {
        new ScsiTaskRunner(this, session, pdu, runtime.worker(), runtime.counters()).start();
    }

    private void onTaskManagement(IserPdu pdu) {
        runtime.taskManagement().handle(this, pdu);
    }

    /**
     * Posts a status PDU (SCSI Response, NOP-In answer, TMF/Text/Logout Response, Reject) with the next StatSN
     * and the session's current window, by SEND_WITH_INV of {@code invalidateStag} when it is not 0.
     */
    CompletionStage<Void> sendStatus(Function<TargetSn, IscsiHeader> header, byte[] data, int invalidateStag) {
        synchronized (sendLock) {
            CmdSnWindow w = session.window();
            TargetSn sn = new TargetSn(statSn, w.expCmdSn(), w.maxCmdSn());
            IserPdu pdu = new IserPdu(IserHeader.CONTROL, new IscsiPdu(header.apply(sn), data));
            CompletionStage<Void> sent = post(pdu, invalidateStag);
            statSn++;
            return sent;
        }
    }

    private CompletionStage<Void> send(IscsiPdu pdu) {
        return post(new IserPdu(IserHeader.CONTROL, pdu), 0);
    }

    private CompletionStage<Void> post(IserPdu pdu, int invalidateStag) {
        try {
            return invalidateStag != 0 ? conn.sendWithInvalidate(pdu, invalidateStag) : conn.send(pdu);
        } catch (RuntimeException e) {
            close();
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A Reject carrying the rejected PDU's BHS (RFC 7143 section 11.17). */
    void reject(RejectReason reason, IscsiHeader rejected) {
        IscsiPdu bhs = new IscsiPdu(rejected, NO_DATA);
        sendReject(reason, bhs.bhs().toByteArray());
    }

    private void sendReject(RejectReason reason, byte[] data) {
        runtime.counters().increment(TargetCounter.REJECTS);
        sendStatus(sn -> new Reject(reason, sn, 0), data, 0);
    }

    /** The Text exchange's state (one per connection: an initiator has one Text exchange at a time). */
    SendTargetsText.Responder textResponder() {
        SendTargetsText.Responder r = textResponder;
        if (r == null) {
            int maxRecv = Math.min(session.params().initiatorRecvDataSegmentLength(),
                    conn.maxRecvDataSegmentLength());
            r = new SendTargetsText.Responder(policy, session.params().initiatorName(), maxRecv);
            textResponder = r;
        }
        return r;
    }

    /**
     * The pinger's tick: drops the connection when a NOP-In went unanswered for {@code timeoutNanos}, else pings
     * when nothing arrived for {@code idleNanos}.
     */
    void nopInTick(long now, long idleNanos, long timeoutNanos) {
        if (session == null || closed.get() || pingTimedOut) {
            return;
        }
        if (pingTtt != Reject.RESERVED_TAG) {
            if (now - pingSentAt > timeoutNanos) {
                // once: the ticks until the disconnect arrives must not count it again (3 were seen under load)
                pingTimedOut = true;
                runtime.counters().increment(TargetCounter.NOP_IN_TIMEOUTS);
                close();
            }
            return;
        }
        if (now - lastReceived < idleNanos) {
            return;
        }
        synchronized (sendLock) {
            int ttt = ++nextPingTtt & 0x7fffffff;
            pingTtt = ttt;
            pingSentAt = now;
            CmdSnWindow w = session.window();
            // RFC 7143 11.19: an unsolicited NOP-In carries the current StatSN without advancing it.
            post(new IserPdu(IserHeader.CONTROL, new IscsiPdu(new NopIn(0, Reject.RESERVED_TAG, ttt,
                    new TargetSn(statSn, w.expCmdSn(), w.maxCmdSn())), NO_DATA)), 0);
        }
    }

    /** Whether {@code ttt} (of a NOP-Out with ITT 0xffffffff) answers the outstanding NOP-In ping, which it then ends. */
    boolean pingAnswered(int ttt) {
        if (ttt != Reject.RESERVED_TAG && ttt == pingTtt) {
            pingTtt = Reject.RESERVED_TAG;
            return true;
        }
        return false;
    }

    /** Disconnects (rdma_disconnect); {@link #onDisconnected} follows. */
    void close() {
        conn.close();
    }

    boolean closed() {
        return closed.get();
    }
}
