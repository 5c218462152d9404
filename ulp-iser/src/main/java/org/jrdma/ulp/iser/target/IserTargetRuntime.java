package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ulp.iser.conn.IserConnection;
import org.jrdma.ulp.iser.conn.IserTransport;
import org.jrdma.ulp.iser.conn.IserTransport.IserListener;
import org.jrdma.ulp.iser.conn.IserTransportException;
import org.jrdma.ulp.iser.login.SessionParams;
import org.jrdma.ulp.iser.login.TargetLogin;
import org.jrdma.ulp.iser.login.TargetLoginPolicy;
import org.jrdma.ulp.iser.login.TargetLogins;

/**
 * The iSER target at run time (LIO {@code iscsi_target_mod} + {@code ib_isert}): one listener per enabled
 * portal, each accepted connection logged in against the {@link TargetDirectory}, then served in the full
 * feature phase; the sessions, the workers that run CDBs (off the completion threads: a fileio backstore
 * blocks) and the counters.
 */
public final class IserTargetRuntime implements PortalControl, AutoCloseable {
    /** Makes the login state machine of one connection (the login package's {@code TargetLogins::create}). */
    @FunctionalInterface
    interface LoginFactory {
        TargetLogin create(TargetLoginPolicy policy, InetSocketAddress portal);
    }

    private static final int WORKERS = Math.max(4, Runtime.getRuntime().availableProcessors());

    private final IserTransport transport;
    private final TargetDirectory directory;
    private final LoginFactory logins;
    private final int window;
    private final Map<InetSocketAddress, IserListener> listeners = new ConcurrentHashMap<>();
    private final Set<TargetConnection> connections = ConcurrentHashMap.newKeySet();
    private final TargetCounters counters = new TargetCounters();
    private final TargetSessions sessions = new TargetSessions(counters);
    private final TaskManagement taskManagement = new TaskManagement(this);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ExecutorService worker;
    private final NopInPinger pinger;

    public IserTargetRuntime(IserTransport transport, TargetDirectory directory) {
        this(transport, directory, TargetLogins::create, CmdSnWindow.DEFAULT_WINDOW);
    }

    IserTargetRuntime(IserTransport transport, TargetDirectory directory, LoginFactory logins, int window) {
        this(transport, directory, logins, window, NopInPinger.DEFAULT_IDLE, NopInPinger.DEFAULT_TIMEOUT);
    }

    /** For tests: the login, the command window and the NOP-In ping times. */
    IserTargetRuntime(IserTransport transport, TargetDirectory directory, LoginFactory logins, int window,
            Duration pingIdle, Duration pingTimeout) {
        this.transport = transport;
        this.directory = directory;
        this.logins = logins;
        this.window = window;
        AtomicInteger n = new AtomicInteger();
        this.worker = Executors.newFixedThreadPool(WORKERS, r -> {
            Thread t = new Thread(r, "iser-target-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.pinger = new NopInPinger(connections, pingIdle, pingTimeout);
    }

    @Override
    public void enable(InetSocketAddress portal) {
        if (closed.get()) {
            throw new IserTransportException("iSER target runtime closed");
        }
        listeners.computeIfAbsent(portal, p -> transport.listen(p, this::accept));
    }

    @Override
    public void enableWhenReady(InetSocketAddress portal) {
        if (closed.get()) {
            throw new IserTransportException("iSER target runtime closed");
        }
        listeners.computeIfAbsent(portal, p -> transport.listenWhenReady(p, this::accept));
    }

    @Override
    public void disable(InetSocketAddress portal) {
        IserListener l = listeners.remove(portal);
        if (l != null) {
            l.close();
        }
    }

    /** The portals listened on. */
    public Set<InetSocketAddress> portals() {
        return Set.copyOf(listeners.keySet());
    }

    /** The live sessions, by TSIH. */
    public List<SessionInfo> sessions() {
        return sessions.all().stream().map(TargetSession::info).sorted(Comparator.comparingInt(SessionInfo::tsih))
                .toList();
    }

    public TargetCounters counters() {
        return counters;
    }

    private void accept(IserConnection c) {
        InetSocketAddress portal = c.localAddress();
        TargetLoginPolicy policy = new DirectoryLoginPolicy(directory, portal, sessions);
        TargetConnection tc = new TargetConnection(this, c, policy, logins.create(policy, portal));
        connections.add(tc);
        c.handler(tc);
        if (closed.get()) {
            tc.close();
        }
    }

    /** A login reached the full feature phase: the session it joins or starts, or null to refuse it. */
    TargetSession attach(TargetConnection c, SessionParams p) {
        PortalGroup group = null;
        if (p.sessionType() == SessionParams.SessionType.NORMAL) {
            Optional<PortalGroup> g = directory.portalGroup(p.targetName(), c.connection().localAddress());
            if (g.isEmpty()) {
                return null; // the target went away between the login's first and last request
            }
            group = g.get();
        }
        return sessions.attach(c, p, group, window);
    }

    /** Connections accepted and not yet gone (login phase ones included). */
    int connectionCount() {
        return connections.size();
    }

    void connectionGone(TargetConnection c) {
        connections.remove(c);
        sessions.detach(c);
    }

    List<TargetSession> sessionsOf(String targetName) {
        return sessions.of(targetName);
    }

    TargetDirectory directory() {
        return directory;
    }

    TaskManagement taskManagement() {
        return taskManagement;
    }

    ExecutorService worker() {
        return worker;
    }

    /** Listeners closed, sessions and connections closed, workers stopped (waits up to 5 s for running CDBs). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pinger.close();
        List.copyOf(listeners.keySet()).forEach(this::disable);
        sessions.closeAll();
        List.copyOf(connections).forEach(TargetConnection::close);
        worker.shutdown();
        try {
            if (!worker.awaitTermination(5, TimeUnit.SECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
