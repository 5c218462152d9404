package org.jrdma.ulp.iser.initiator;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.login.ChapSecrets;
import org.jrdma.ulp.iser.login.InitiatorLoginParams;
import org.jrdma.ulp.iser.login.InitiatorLogins;
import org.jrdma.ulp.iser.login.OperationalProposals;
import org.jrdma.ulp.iser.login.SessionParams.SessionType;

/**
 * The initiator (iscsid's role): discovery sessions, normal sessions by SID, the ISIDs. The ISID is open-iscsi's
 * (OUI format, {@code 00:02:3d} then a per-session qualifier), so a session keeps it for reinstatement.
 */
public final class IserInitiatorService implements IserInitiator, AutoCloseable {
    /** open-iscsi's ISID prefix (type 00b OUI 0x023d); the low bits number the session. */
    static final long ISID_BASE = 0x00023d000000L;

    private final IserTransport transport;
    private final String initiatorName;
    private final LoginFactory logins;
    private final Map<Integer, InitiatorSession> sessions = new ConcurrentSkipListMap<>();
    private final AtomicInteger nextSid = new AtomicInteger(1);
    private volatile IserSessionOptions defaults = IserSessionOptions.defaults();
    private volatile boolean closed;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "iser-initiator");
        t.setDaemon(true);
        return t;
    });

    public IserInitiatorService(IserTransport transport, String initiatorName) {
        this(transport, initiatorName, InitiatorLogins::create);
    }

    IserInitiatorService(IserTransport transport, String initiatorName, LoginFactory logins) {
        this.transport = transport;
        this.initiatorName = initiatorName;
        this.logins = logins;
    }

    /** The options of {@link #login(InetSocketAddress, String)} (the component's configuration). */
    public void defaultOptions(IserSessionOptions options) {
        defaults = options;
    }

    public IserSessionOptions defaultOptions() {
        return defaults;
    }

    @Override
    public CompletionStage<IserSession> login(InetSocketAddress portal, String targetName) {
        return login(portal, targetName, defaults);
    }

    @Override
    public String initiatorName() {
        return initiatorName;
    }

    @Override
    public CompletionStage<List<DiscoveredTarget>> discover(InetSocketAddress portal) {
        if (closed) {
            return CompletableFuture.failedFuture(new IserIoException("the iSER initiator is stopped"));
        }
        IserSessionOptions o = defaults;
        SendTargetsDiscovery discovery = new SendTargetsDiscovery(portal);
        InitiatorLoginParams spec = InitiatorLoginParams.discovery(initiatorName, ISID_BASE);
        return ConnectionLogin.run(transport, portal, logins.create(spec), discovery, o.loginTimeout())
                .thenCompose(p -> discovery.result(o.loginTimeout()));
    }

    @Override
    public CompletionStage<IserSession> login(InetSocketAddress portal, String targetName,
            IserSessionOptions options) {
        if (closed) {
            return CompletableFuture.failedFuture(new IserIoException("the iSER initiator is stopped"));
        }
        for (InitiatorSession s : sessions.values()) {
            if (s.targetName().equals(targetName) && s.portal().equals(portal)) {
                return CompletableFuture.failedFuture(new SessionExistsException(s));
            }
        }
        int sid = nextSid.getAndIncrement();
        String name = options.initiatorName() != null ? options.initiatorName() : initiatorName;
        ChapSecrets chap = options.chapUsername() == null ? null : new ChapSecrets(options.chapUsername(),
                options.chapPassword(), options.chapUsernameIn(), options.chapPasswordIn());
        InitiatorLoginParams spec = new InitiatorLoginParams(name, options.initiatorAlias(), targetName,
                SessionType.NORMAL, ISID_BASE + sid, 0, 0, chap, OperationalProposals.openIscsiIser());
        InitiatorSession session = new InitiatorSession(transport, logins, spec, options, portal, sid, timers,
                () -> sessions.remove(sid));
        sessions.put(sid, session);
        return session.start();
    }

    @Override
    public List<IserSession> sessions() {
        return new ArrayList<>(sessions.values());
    }

    /** The session with {@code sid}, or null. */
    public IserSession session(int sid) {
        return sessions.get(sid);
    }

    /** Logs every session out (bounded by each one's logout timeout), then stops the timers. */
    @Override
    public void close() {
        closed = true;
        for (InitiatorSession s : new ArrayList<>(sessions.values())) {
            s.close();
        }
        timers.shutdownNow();
    }
}
