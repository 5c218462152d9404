package org.jrdma.ulp.iser.conn;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;

/**
 * {@link IserTransport} over the RDMA CM ({@code org.jrdma.ib.cm}) and the verbs API: the target side as isert
 * ({@code isert_setup_np}, {@code isert_connect_request}, {@code isert_rdma_accept}), the initiator side as
 * ib_iser ({@code iser_connect}, {@code iser_addr_handler}, {@code iser_route_handler}). One CM event handler for
 * every id it makes; the ids' context is their {@link RdmaIserConnection} (or {@link Listener}).
 */
public final class RdmaIserTransport implements IserTransport, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RdmaIserTransport.class.getName());
    /** {@code IB_DEVICE_MEM_MGT_EXTENSIONS}: the device can SEND_WITH_INV (isert checks it too). */
    static final long MEM_MGT_EXTENSIONS = 1L << 21;
    /** isert's listen backlog ({@code ISERT_RDMA_LISTEN_BACKLOG}). */
    static final int LISTEN_BACKLOG = 10;
    private static final long CLOSE_WAIT_MS = 5000;
    /** How often a portal whose device went away tries to listen again. */
    private static final long RELISTEN_MS = 500;

    private final RdmaCm cm;
    private final IserConnectionConfig cfg;
    private final Set<RdmaIserConnection> connections = ConcurrentHashMap.newKeySet();
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public RdmaIserTransport(RdmaCm cm, IserConnectionConfig cfg) {
        this.cm = cm;
        this.cfg = cfg;
    }

    public IserConnectionConfig config() {
        return cfg;
    }

    /** Connections alive (set up, established or going down). */
    public List<IserConnection> connections() {
        return new ArrayList<>(connections);
    }

    // ------------------------------------------------------------------ target

    @Override
    public IserListener listen(InetSocketAddress portal, Consumer<IserConnection> accepted) {
        checkOpen();
        Listener l = new Listener(portal, accepted);
        l.open();
        listeners.add(l);
        return l;
    }

    @Override
    public IserListener listenWhenReady(InetSocketAddress portal, Consumer<IserConnection> accepted) {
        checkOpen();
        Listener l = new Listener(portal, accepted);
        try {
            l.open();
        } catch (IserTransportException e) {
            if (!(e.getCause() instanceof VerbsException v) || v.errno() != Errno.EADDRNOTAVAIL) {
                throw e;
            }
            LOG.log(System.Logger.Level.WARNING, "isert: no RDMA device has " + portal.getAddress().getHostAddress()
                    + " yet; portal " + portal + " listens as soon as one does");
            l.relistenLater();
        }
        listeners.add(l);
        return l;
    }

    /** {@code isert_setup_id}: an id bound to the portal and listening, its context set before the first event. */
    private RdmaCmId listenId(InetSocketAddress portal, Object context) {
        RdmaCmId id = cm.createId(this::onEvent, RdmaPortSpace.TCP);
        id.context(context);
        try {
            id.bindAddr(portal);
            id.listen(LISTEN_BACKLOG);
        } catch (RuntimeException e) {
            id.close();
            throw new IserTransportException("cannot listen on " + portal + ": " + e.getMessage(), e);
        }
        return id;
    }

    /** {@code isert_connect_request}: resources on the id's device, receives posted, then the REP. */
    private int onConnectRequest(RdmaCmEvent ev) {
        Listener l = ev.listenId() == null ? null : (Listener) ev.listenId().context();
        if (l == null || closed) {
            return 1; // rejected and destroyed by the CM
        }
        byte[] pdata = ev.param().privateData();
        IserCmHeader hdr = IserCmHeader.decode(pdata);
        RdmaIserConnection c = newConnection(ev.id(), null);
        DeviceAttr attr;
        try {
            attr = ev.id().device().queryDevice();
            boolean inv = IserCmHeader.present(pdata) && !hdr.sendWithInvalidateNotSupported() && canInvalidate(attr);
            c.peer(hdr, inv);
            c.setup = l;
            c.createResources();
            // isert_set_nego_params: RDMA READs in flight = what the initiator's responder resources allow, capped
            // by the device. Linux's IB CM reports the REQ's responder resources as the event's initiator_depth;
            // ib-cm reports the REQ's fields as sent, so its responderResources() is the same number.
            int depth = Math.min(ev.param().responderResources(), attr.maxQpInitRdAtom());
            ev.id().accept(new RdmaConnParam().responderResources(0).initiatorDepth(depth).flowControl(0)
                    .retryCount(7).rnrRetryCount(7).privateData(IserCmHeader.of(inv).encode()));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "isert: connect request from " + ev.id().remoteAddr() + " refused: " + e);
            c.down("accept failed: " + e.getMessage()); // frees, and destroying the id rejects the REQ
        }
        return 0;
    }

    /**
     * isert: remote invalidation needs {@code IB_DEVICE_MEM_MGT_EXTENSIONS}. hw-rxe reports no capability flags
     * (0) although it does fast registration and SEND_WITH_INV, so a device with a fast-registration page list
     * counts as capable too.
     */
    static boolean canInvalidate(DeviceAttr attr) {
        return (attr.deviceCapFlags() & MEM_MGT_EXTENSIONS) != 0 || attr.maxFastRegPageListLen() > 0;
    }

    // ------------------------------------------------------------------ initiator

    @Override
    public CompletionStage<IserConnection> connect(InetSocketAddress portal, IserConnectionHandler handler) {
        checkOpen();
        CompletableFuture<IserConnection> f = new CompletableFuture<>();
        RdmaCmId id = cm.createId(this::onEvent, RdmaPortSpace.TCP);
        RdmaIserConnection c = newConnection(id, handler);
        c.setup = new Connector(f);
        try {
            id.resolveAddr(cfg.sourceAddress() == null ? null : new InetSocketAddress(cfg.sourceAddress(), 0), portal,
                    cfg.connectTimeoutMs());
        } catch (RuntimeException e) {
            c.down("rdma_resolve_addr " + portal + ": " + e.getMessage());
        }
        CompletableFuture.runAsync(() -> c.connectTimedOut("connect to " + portal + " timed out after "
                + cfg.connectTimeoutMs() + " ms"), CompletableFuture.delayedExecutor(cfg.connectTimeoutMs(),
                TimeUnit.MILLISECONDS));
        return f;
    }

    /** {@code iser_route_handler}: resources on the resolved device, then the REQ with Linux's parameters. */
    private void onRouteResolved(RdmaIserConnection c) {
        c.createResources();
        DeviceAttr attr = c.id.device().queryDevice();
        // ib_iser: responder_resources = the device's max_qp_rd_atom, initiator_depth 1, retry 7, RNR retry 6
        c.id.connect(new RdmaConnParam().responderResources(attr.maxQpRdAtom()).initiatorDepth(1).flowControl(0)
                .retryCount(7).rnrRetryCount(6).privateData(IserCmHeader.of(cfg.acceptRemoteInvalidate()).encode()));
    }

    // ------------------------------------------------------------------ CM events

    private RdmaIserConnection newConnection(RdmaCmId id, IserConnectionHandler handler) {
        RdmaIserConnection[] self = new RdmaIserConnection[1];
        self[0] = new RdmaIserConnection(id, cfg, handler, () -> connections.remove(self[0]));
        connections.add(self[0]);
        return self[0];
    }

    private int onEvent(RdmaCmId id, RdmaCmEvent ev) {
        try {
            return dispatch(id, ev);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "iser: " + ev + " on " + id + " failed", e);
            if (id.context() instanceof RdmaIserConnection c) {
                c.down(ev.type() + " failed: " + e.getMessage());
            }
            return 0;
        }
    }

    private int dispatch(RdmaCmId id, RdmaCmEvent ev) {
        Object ctx = id.context();
        switch (ev.type()) {
            case CONNECT_REQUEST:
                return onConnectRequest(ev);
            case DEVICE_REMOVAL:
                if (ctx instanceof RdmaIserConnection c) {
                    c.down("device removal");
                    c.awaitDown(CLOSE_WAIT_MS - 1000); // the RDMA CM waits for the resources to be given back
                } else if (ctx instanceof Listener l) {
                    return l.deviceRemoved();
                }
                return 0;
            default:
                break;
        }
        if (!(ctx instanceof RdmaIserConnection c)) {
            return 0;
        }
        switch (ev.type()) {
            case ADDR_RESOLVED -> c.id.resolveRoute(cfg.connectTimeoutMs());
            case ROUTE_RESOLVED -> onRouteResolved(c);
            case ESTABLISHED -> {
                RdmaIserConnection.Setup s = c.setup;
                if (s != null) {
                    s.established(c, ev.param() == null ? null : ev.param().privateData());
                }
            }
            case REJECTED -> c.down("REJECTED: " + rejectReason(ev.status()));
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR ->
                    c.down(ev.type().name() + " (status " + ev.status() + ")");
            case DISCONNECTED -> c.down("DISCONNECTED by the peer");
            default -> {
            }
        }
        return 0;
    }

    static String rejectReason(int status) {
        IbCmRejReason r = IbCmRejReason.find(status);
        return (r == null ? "reason" : r.name()) + " (" + status + ")";
    }

    private void checkOpen() {
        if (closed) {
            throw new IserTransportException("the iSER transport is closed");
        }
    }

    /** Stops listening, closes every connection and waits (bounded) for their completion threads to end. */
    @Override
    public void close() {
        closed = true;
        listeners.forEach(Listener::close);
        List<RdmaIserConnection> all = new ArrayList<>(connections);
        all.forEach(RdmaIserConnection::close);
        for (RdmaIserConnection c : all) {
            if (!c.awaitDown(CLOSE_WAIT_MS)) {
                LOG.log(System.Logger.Level.WARNING, "iser: " + c + " did not finish closing");
            }
        }
    }

    /**
     * A listening portal; it also finishes the connections it accepts. When the portal's device goes away its id
     * is destroyed and a new one is bound as soon as a device has the address again (isert re-creates the id at
     * once and gives up if that fails; here the portal comes back with a driver restart or {@code rdma link add}).
     */
    final class Listener implements IserListener, RdmaIserConnection.Setup {
        private final InetSocketAddress portal;
        private final Consumer<IserConnection> accepted;
        private volatile InetSocketAddress address;
        private RdmaCmId id;
        private boolean stopped;

        Listener(InetSocketAddress portal, Consumer<IserConnection> accepted) {
            this.portal = portal;
            this.accepted = accepted;
            this.address = portal;
        }

        /** Binds and listens (throws if the address has no device). */
        void open() {
            RdmaCmId fresh = listenId(portal, this);
            synchronized (this) {
                if (!stopped) {
                    id = fresh;
                    address = fresh.localAddr();
                    return;
                }
            }
            IbResources.quietly(fresh::close);
        }

        @Override
        public InetSocketAddress address() {
            return address;
        }

        @Override
        public void close() {
            RdmaCmId old;
            synchronized (this) {
                stopped = true;
                old = id;
                id = null;
            }
            listeners.remove(this);
            if (old != null) {
                IbResources.quietly(old::close);
            }
        }

        /** DEVICE_REMOVAL on the listening id: 1 = the CM destroys it (and frees the port); listen again later. */
        int deviceRemoved() {
            synchronized (this) {
                id = null;
            }
            LOG.log(System.Logger.Level.WARNING, "isert: the device of portal " + address
                    + " was removed; listening again once the address has a device");
            relistenLater();
            return 1;
        }

        private void relistenLater() {
            CompletableFuture.runAsync(this::relisten,
                    CompletableFuture.delayedExecutor(RELISTEN_MS, TimeUnit.MILLISECONDS));
        }

        private void relisten() {
            synchronized (this) {
                if (stopped || closed) {
                    return;
                }
            }
            try {
                open();
                LOG.log(System.Logger.Level.INFO, "isert: listening on " + address + " again");
            } catch (IserTransportException e) {
                relistenLater(); // no device with the address yet
            }
        }

        /** ESTABLISHED on an accepted id: handed over (its handler set there), then its completion thread starts. */
        @Override
        public void established(RdmaIserConnection c, byte[] privateData) {
            c.setup = null;
            if (!c.established()) {
                return;
            }
            try {
                accepted.accept(c);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "isert: the accept callback failed", e);
                c.down("accept callback failed: " + e);
            }
            c.startPoller();
        }

        @Override
        public void failed(RdmaIserConnection c, String why) {
            LOG.log(System.Logger.Level.DEBUG, "isert: connection from " + c.remoteAddress() + " failed: " + why);
        }
    }

    /** One {@link #connect}: its stage completes at ESTABLISHED or fails with the reason. */
    private static final class Connector implements RdmaIserConnection.Setup {
        private final CompletableFuture<IserConnection> done;

        Connector(CompletableFuture<IserConnection> done) {
            this.done = done;
        }

        @Override
        public void established(RdmaIserConnection c, byte[] privateData) {
            c.setup = null;
            IserCmHeader hdr = IserCmHeader.decode(privateData);
            c.peer(hdr, IserCmHeader.present(privateData) && !hdr.sendWithInvalidateNotSupported());
            if (c.established()) {
                c.startPoller();
                if (!done.complete(c)) {
                    c.close(); // timed out meanwhile
                }
            }
        }

        @Override
        public void failed(RdmaIserConnection c, String why) {
            done.completeExceptionally(new IserTransportException(why));
        }
    }
}
