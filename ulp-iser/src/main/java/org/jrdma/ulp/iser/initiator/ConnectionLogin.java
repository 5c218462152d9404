package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserConnectionHandler;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.initiator.LoginFailedException.Kind;
import org.jrdma.ulp.iser.login.InitiatorLogin;
import org.jrdma.ulp.iser.login.LoginStep;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserHeader;
import org.jrdma.ulp.iser.pdu.IserPdu;
import org.jrdma.ulp.iser.pdu.LoginResponse;
import org.jrdma.ulp.iser.pdu.TargetSn;

/**
 * Connects to a portal and runs one connection's login phase (open-iscsi's {@code iscsi_login_begin} ..
 * {@code iscsi_login_rsp}), then hands the connection to the full feature phase: {@code next} gets every PDU
 * after the final Login Response, and {@link FullFeature#attach} runs on the connection's thread before the
 * first of them, so nothing is missed.
 */
final class ConnectionLogin implements IserConnectionHandler {

    /** The full feature phase of a logged-in connection. */
    interface FullFeature extends IserConnectionHandler {
        void attach(IserConnection conn, SessionParams params, TargetSn window);
    }

    private final InitiatorLogin login;
    private final FullFeature next;
    private final CompletableFuture<SessionParams> result = new CompletableFuture<>();
    private volatile boolean fullFeature;

    private ConnectionLogin(InitiatorLogin login, FullFeature next) {
        this.login = login;
        this.next = next;
    }

    /** Connects, logs in within {@code timeout}; the stage fails with an {@link IserIoException} in words. */
    static CompletableFuture<SessionParams> run(IserTransport transport, InetSocketAddress portal,
            InitiatorLogin login, FullFeature next, Duration timeout) {
        ConnectionLogin handler = new ConnectionLogin(login, next);
        CompletableFuture<IserConnection> connected = new CompletableFuture<>();
        transport.connect(portal, handler).whenComplete((conn, e) -> {
            if (e != null) {
                connected.completeExceptionally(e);
            } else {
                connected.complete(conn);
            }
        });
        return connected.thenCompose(conn -> handler.begin(conn, timeout))
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(wrap(portal, e)));
    }

    /**
     * open-iscsi's {@code node.session.initial_login_retry_max}: a first login whose connection fails (a CM
     * REJ such as STALE_CONN while the target still holds a connection of an earlier run, nobody listening
     * yet) is tried again {@link #LOGIN_RETRY_DELAY_MS} later, up to {@code tries} attempts in all. Logins the
     * target answered with an error are not retried: those are its final word.
     */
    static CompletableFuture<SessionParams> retrying(java.util.function.Supplier<CompletableFuture<SessionParams>> attempt,
            java.util.concurrent.ScheduledExecutorService timers, int tries) {
        return attempt.get().handle((p, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(p);
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (tries <= 1 || !(cause instanceof LoginFailedException f) || f.kind() != Kind.TRANSPORT) {
                return CompletableFuture.<SessionParams>failedFuture(cause);
            }
            CompletableFuture<SessionParams> next = new CompletableFuture<>();
            try {
                timers.schedule(() -> retrying(attempt, timers, tries - 1).whenComplete((q, g) -> {
                    if (g != null) {
                        next.completeExceptionally(g);
                    } else {
                        next.complete(q);
                    }
                }), LOGIN_RETRY_DELAY_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                next.completeExceptionally(cause);
            }
            return next;
        }).thenCompose(f -> f);
    }

    /** Pause between two attempts of a first login. */
    static final long LOGIN_RETRY_DELAY_MS = 1000;

    private CompletableFuture<SessionParams> begin(IserConnection conn, Duration timeout) {
        send(conn, login.start());
        result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((p, e) -> {
            if (e != null) {
                conn.close();
            }
        });
        return result;
    }

    private static Throwable wrap(InetSocketAddress portal, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof IserIoException) {
            return cause;
        }
        if (cause instanceof java.util.concurrent.TimeoutException) {
            return new LoginFailedException(Kind.TIMEOUT, "login to " + portal + " timed out");
        }
        return new LoginFailedException(Kind.TRANSPORT, "connect to " + portal + " failed: " + cause.getMessage(),
                cause);
    }

    private static void send(IserConnection conn, IscsiPdu pdu) {
        conn.send(new IserPdu(IserHeader.CONTROL, pdu));
    }

    @Override
    public void onPdu(IserConnection conn, IserPdu pdu) {
        if (fullFeature) {
            next.onPdu(conn, pdu);
            return;
        }
        if (!(pdu.pdu().header() instanceof LoginResponse response)) {
            fail(conn, Kind.LOGIN, "login: unexpected " + pdu.pdu().opcode() + " during login");
            return;
        }
        LoginStep step;
        try {
            step = login.onResponse(pdu.pdu());
        } catch (RuntimeException e) {
            fail(conn, Kind.LOGIN, "login: " + e.getMessage());
            return;
        }
        switch (step.state()) {
            case CONTINUE -> send(conn, step.reply());
            case FULL_FEATURE -> {
                fullFeature = true;
                next.attach(conn, step.params(), response.sn());
                result.complete(step.params());
            }
            case FAILED -> fail(conn, Kind.of(response.status()), step.failure());
        }
    }

    private void fail(IserConnection conn, Kind kind, String why) {
        result.completeExceptionally(new LoginFailedException(kind, why));
        conn.close();
    }

    @Override
    public void onMalformed(IserConnection conn, IscsiProtocolException error) {
        if (fullFeature) {
            next.onMalformed(conn, error);
        } else {
            fail(conn, Kind.LOGIN, "login: malformed PDU from the target: " + error.getMessage());
        }
    }

    @Override
    public void onDisconnected(IserConnection conn, String reason) {
        if (fullFeature) {
            next.onDisconnected(conn, reason);
        } else {
            result.completeExceptionally(new LoginFailedException(Kind.TRANSPORT,
                    "connection closed during login: " + reason));
        }
    }
}
