package org.jrdma.ib.cm.tools;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;

/**
 * A test-only RDMA CM over hw-loopback devices in one JVM: IP addresses map to (device, port); address
 * and route resolution succeed at once; connect hands a CONNECT_REQUEST with a new id to the listener;
 * accept moves both QPs to RTR/RTS with each other's LID and QPN and delivers ESTABLISHED to the active
 * side, then to the passive side; disconnect moves both QPs to ERR and delivers DISCONNECTED to the peer,
 * then to itself; destroying a connected id does the same for the peer only (the kernel sends a DREQ).
 * Events are delivered in order on one CM thread; {@link RdmaCmId#close()} first delivers the events
 * already queued for the id, as {@code rdma_destroy_id} waits for the handler. No MAD is sent.
 */
final class LoopbackRdmaCm implements RdmaCm, AutoCloseable {
    record Endpoint(IbDevice device, int port) {
    }

    /** IB CM reject reasons ({@code ib_cm_rej_reason}). */
    static final int REJ_INVALID_SERVICE_ID = 8;
    static final int REJ_CONSUMER_DEFINED = 28;

    private final Map<InetAddress, Endpoint> addresses;
    private final Map<InetSocketAddress, Id> listeners = new ConcurrentHashMap<>();
    private final Set<Id> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ephemeral = new AtomicInteger(40000);
    private volatile Thread cmThread;
    private final ExecutorService cm = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "loopback-rdma-cm");
        t.setDaemon(true);
        cmThread = t;
        return t;
    });

    LoopbackRdmaCm(Map<InetAddress, Endpoint> addresses) {
        this.addresses = Map.copyOf(addresses);
    }

    @Override
    public RdmaCmId createId(RdmaCmEventHandler handler, RdmaPortSpace ps) {
        Id id = new Id(handler, ps);
        open.add(id);
        return id;
    }

    /** Whether an id listens on {@code addr}. */
    boolean listening(InetSocketAddress addr) {
        return listeners.containsKey(addr);
    }

    /** The ids not destroyed yet. */
    Set<Id> openIds() {
        return Set.copyOf(open);
    }

    @Override
    public void close() {
        cm.shutdownNow();
    }

    /** An errno by name, falling back where ib-core's {@link Errno} does not have it (yet). */
    static Errno errno(String name, Errno fallback) {
        try {
            return Errno.valueOf(name);
        } catch (IllegalArgumentException e) {
            return fallback;
        }
    }

    private void post(Id id, RdmaCmEventType type, Id listenId, int status, RdmaConnParam param) {
        RdmaCmEvent ev = new RdmaCmEvent(type, id, listenId, status, param);
        cm.execute(() -> {
            if (id.closed) {
                return;
            }
            int r = id.handler.handle(id, ev);
            if (r != 0) {
                if (type == RdmaCmEventType.CONNECT_REQUEST && id.peer != null) {
                    Id client = id.peer;
                    client.pendingChild = null;
                    post(client, RdmaCmEventType.REJECTED, null, REJ_CONSUMER_DEFINED, null);
                }
                id.destroyNow();
            }
        });
    }

    /** Waits until what was queued before now has been delivered (not on the CM thread itself). */
    private void drain() {
        if (Thread.currentThread() == cmThread || cm.isShutdown()) {
            return;
        }
        try {
            cm.submit(() -> { }).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
            // the CM is gone or stuck: nothing more to deliver
        }
    }

    private static void toErr(QueuePair qp) {
        if (qp != null && qp.isValid()) {
            try {
                qp.modify(new QpAttr().state(QpState.ERR));
            } catch (VerbsException e) {
                // destroyed meanwhile
            }
        }
    }

    private static void toRts(Id self, Id peer, RdmaConnParam p) {
        int dlid = peer.device.queryPort(peer.port).lid();
        self.qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(self.port).dlid(dlid))
                .pathMtu(self.device.queryPort(self.port).activeMtu()).destQpNum(peer.qp.qpNum()).rqPsn(0)
                .maxDestRdAtomic(Math.max(1, p.responderResources())).minRnrTimer(12));
        self.qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(p.retryCount())
                .rnrRetry(p.rnrRetryCount()).sqPsn(0).maxRdAtomic(Math.max(1, p.initiatorDepth())));
    }

    final class Id implements RdmaCmId {
        final RdmaCmEventHandler handler;
        final RdmaPortSpace ps;
        volatile Object context;
        volatile IbDevice device;
        volatile int port;
        volatile InetSocketAddress local;
        volatile InetSocketAddress remote;
        volatile QueuePair qp;
        volatile Id peer;
        volatile Id pendingChild;
        volatile RdmaConnParam connectParam;
        volatile boolean connected;
        volatile boolean closed;
        volatile InetSocketAddress listeningOn;

        Id(RdmaCmEventHandler handler, RdmaPortSpace ps) {
            this.handler = handler;
            this.ps = ps;
        }

        private void at(InetAddress a) {
            Endpoint e = addresses.get(a);
            if (e == null) {
                throw new VerbsException(errno("EADDRNOTAVAIL", Errno.EINVAL), "no device has " + a);
            }
            device = e.device();
            port = e.port();
        }

        @Override
        public void bindAddr(InetSocketAddress addr) {
            if (!addr.getAddress().isAnyLocalAddress()) {
                at(addr.getAddress());
            }
            if (listeners.containsKey(addr)) {
                throw new VerbsException(errno("EADDRINUSE", Errno.EBUSY), addr + " is in use");
            }
            local = addr;
        }

        @Override
        public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
            Endpoint to = addresses.get(dst.getAddress());
            if (to == null) {
                post(this, RdmaCmEventType.ADDR_ERROR, null, -Errno.ETIMEDOUT.value(), null);
                return;
            }
            InetAddress from = src != null ? src.getAddress() : null;
            if (from == null) {
                for (InetAddress a : addresses.keySet()) {
                    if (!a.equals(dst.getAddress())) {
                        from = a;
                        break;
                    }
                }
                if (from == null) {
                    from = dst.getAddress();
                }
            }
            at(from);
            local = new InetSocketAddress(from, ephemeral.incrementAndGet());
            remote = dst;
            post(this, RdmaCmEventType.ADDR_RESOLVED, null, 0, null);
        }

        @Override
        public void resolveRoute(int timeoutMs) {
            if (device == null) {
                throw new VerbsException(Errno.EINVAL, "address not resolved");
            }
            post(this, RdmaCmEventType.ROUTE_RESOLVED, null, 0, null);
        }

        @Override
        public void listen(int backlog) {
            if (local == null) {
                throw new VerbsException(Errno.EINVAL, "not bound");
            }
            if (listeners.putIfAbsent(local, this) != null) {
                throw new VerbsException(errno("EADDRINUSE", Errno.EBUSY), local + " is in use");
            }
            listeningOn = local;
        }

        @Override
        public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
            if (device == null || pd.device() != device) {
                throw new VerbsException(Errno.EINVAL, "the PD is not on the id's device");
            }
            QueuePair q = pd.createQp(attr);
            try {
                q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port)
                        .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
            } catch (VerbsException e) {
                q.destroy();
                throw e;
            }
            qp = q;
            return q;
        }

        @Override
        public void destroyQp() {
            QueuePair q = qp;
            qp = null;
            if (q != null && q.isValid()) {
                q.destroy();
            }
        }

        @Override
        public void connect(RdmaConnParam param) {
            if (qp == null || remote == null) {
                throw new VerbsException(Errno.EINVAL, "no QP or route");
            }
            Id listener = listeners.get(remote);
            if (listener == null) {
                listener = listeners.get(new InetSocketAddress(Wildcard.ANY, remote.getPort()));
            }
            if (listener == null || listener.closed) {
                post(this, RdmaCmEventType.REJECTED, null, REJ_INVALID_SERVICE_ID, null);
                return;
            }
            Id child = new Id(listener.handler, ps);
            open.add(child);
            child.context = listener.context;
            Endpoint e = addresses.get(remote.getAddress());
            child.device = e.device();
            child.port = e.port();
            child.local = remote;
            child.remote = local;
            child.peer = this;
            connectParam = param;
            pendingChild = child;
            // the passive side's view: our initiator depth is its responder resources
            RdmaConnParam req = new RdmaConnParam().qpNum(qp.qpNum()).responderResources(param.initiatorDepth())
                    .initiatorDepth(param.responderResources()).retryCount(param.retryCount())
                    .rnrRetryCount(param.rnrRetryCount()).flowControl(param.flowControl())
                    .privateData(param.privateData());
            post(child, RdmaCmEventType.CONNECT_REQUEST, listener, 0, req);
        }

        @Override
        public void accept(RdmaConnParam param) {
            Id client = peer;
            if (client == null || qp == null || client.qp == null || client.pendingChild != this) {
                throw new VerbsException(Errno.EINVAL, "no connect request to accept");
            }
            RdmaConnParam mine = param != null ? param : new RdmaConnParam();
            toRts(this, client, mine);
            toRts(client, this, client.connectParam);
            client.pendingChild = null;
            client.peer = this;
            client.connected = true;
            connected = true;
            post(client, RdmaCmEventType.ESTABLISHED, null, 0, new RdmaConnParam().qpNum(qp.qpNum())
                    .responderResources(mine.initiatorDepth()).initiatorDepth(mine.responderResources()));
            post(this, RdmaCmEventType.ESTABLISHED, null, 0, null);
        }

        @Override
        public void reject(byte[] privateData) {
            Id client = peer;
            if (client == null || client.pendingChild != this) {
                throw new VerbsException(Errno.EINVAL, "no connect request to reject");
            }
            client.pendingChild = null;
            post(client, RdmaCmEventType.REJECTED, null, REJ_CONSUMER_DEFINED,
                    new RdmaConnParam().privateData(privateData));
        }

        @Override
        public void disconnect() {
            if (!connected) {
                throw new VerbsException(Errno.EINVAL, "not connected");
            }
            Id p = peer;
            connected = false;
            toErr(qp);
            if (p != null && p.connected) {
                p.connected = false;
                toErr(p.qp);
                post(p, RdmaCmEventType.DISCONNECTED, null, 0, null);
            }
            post(this, RdmaCmEventType.DISCONNECTED, null, 0, null);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            if (connected) {
                // rdma_destroy_id of a connected id: the kernel sends a DREQ
                connected = false;
                Id p = peer;
                toErr(qp);
                if (p != null && p.connected) {
                    p.connected = false;
                    toErr(p.qp);
                    post(p, RdmaCmEventType.DISCONNECTED, null, 0, null);
                }
            }
            drain();
            destroyNow();
        }

        void destroyNow() {
            closed = true;
            if (listeningOn != null) {
                listeners.remove(listeningOn, this);
                listeningOn = null;
            }
            open.remove(this);
        }

        @Override
        public IbDevice device() {
            return device;
        }

        @Override
        public int portNum() {
            return port;
        }

        @Override
        public QueuePair qp() {
            return qp;
        }

        @Override
        public InetSocketAddress localAddr() {
            return local;
        }

        @Override
        public InetSocketAddress remoteAddr() {
            return remote;
        }

        @Override
        public RdmaPortSpace portSpace() {
            return ps;
        }

        @Override
        public Object context() {
            return context;
        }

        @Override
        public void context(Object context) {
            this.context = context;
        }
    }

    /** The wildcard address. */
    static final class Wildcard {
        static final InetAddress ANY;

        static {
            try {
                ANY = InetAddress.getByAddress(new byte[4]);
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);
            }
        }

        private Wildcard() {
        }
    }
}
