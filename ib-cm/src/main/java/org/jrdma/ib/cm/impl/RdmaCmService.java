package org.jrdma.ib.cm.impl;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.SaClient;

/**
 * The RDMA CM ({@code cma.c}): ids, listeners, devices, for RoCE ports and (with an {@link SaClient} for the
 * path records) InfiniBand ports, where addresses are GIDs. Binding and address and route resolution are
 * {@link CmaResolver}'s, the connection calls {@link CmaConnect}'s, event delivery (one "rdma-cm" thread, in
 * order, outside the lock) {@link CmaEvents}'. Connections run on the IB CM through its API ({@link IbCm}),
 * as any other consumer's; its events come to {@link CmaIbHandler}. One lock guards every id.
 */
public final class RdmaCmService implements RdmaCm, IbClient, AutoCloseable {
    static final System.Logger LOG = System.getLogger("org.jrdma.ib.cm");
    /** {@code CMA_CM_RESPONSE_TIMEOUT}: 4.096 us * 2^20, about 4.3 s. */
    static final int CM_RESPONSE_TIMEOUT = 20;
    /** {@code CMA_MAX_CM_RETRIES}. */
    static final int MAX_CM_RETRIES = IbCmService.MAX_CM_RETRIES;
    /** {@code CMA_IBOE_PACKET_LIFETIME} (18 in 6.1: Linux's REQ carries local ACK timeout 19 over rxe). */
    static final int IBOE_PACKET_LIFETIME = 18;
    /** {@code CMA_CM_MRA_SETTING} less {@code IB_CM_MRA_FLAG_DELAY}: the service timeout of cma's MRAs (2^24 * 4.096 us, about 67 s). */
    static final int MRA_SERVICE_TIMEOUT = 24;
    /** {@code RDMA_UDP_QKEY}: the Q_Key of every UD QP of the UDP port space. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    final Object lock = new Object();
    private final IbCore core;
    final IbCm ib;
    /** The IB CM this service made for itself (plain-Java use), closed with it; null when it was given one. */
    private final IbCmService ownIb;
    final CmaIbHandler ibHandler = new CmaIbHandler(this);
    final CmaEvents events = new CmaEvents(this);
    final CmaResolver resolver;
    final CmaConnect conn;
    final PortSpaces ports = new PortSpaces();
    /** The network interfaces on RDMA ports (IPoIB) that own and resolve IP addresses, asked before the GID tables. */
    final CmaAddrResolvers addrs = new CmaAddrResolvers();
    final List<CmaId> listeners = new ArrayList<>();
    final List<CmaId> ids = new ArrayList<>();
    final CmCounter.Counters counters = new CmCounter.Counters();
    private volatile boolean closed;
    /** The SA client for InfiniBand routes ({@code ib_sa_path_rec_get}), or null: IB routes fail with -ENODEV. */
    volatile SaClient sa;

    /** With an IB CM of its own on {@code mad}. */
    public RdmaCmService(IbCore core, MadService mad) {
        this(core, mad, null);
    }

    /** With an IB CM of its own, and {@code sa} (e.g. {@code new SaClientImpl(mad)}) to resolve routes on InfiniBand ports. */
    public RdmaCmService(IbCore core, MadService mad, SaClient sa) {
        this(core, new IbCmService(core, mad), sa, true);
    }

    /** Over the IB CM {@code ib} (the service's; not closed with this one). */
    public RdmaCmService(IbCore core, IbCm ib, SaClient sa) {
        this(core, ib, sa, false);
    }

    private RdmaCmService(IbCore core, IbCm ib, SaClient sa, boolean owned) {
        this.core = core;
        this.ib = ib;
        this.ownIb = owned ? (IbCmService) ib : null;
        this.sa = sa;
        this.resolver = new CmaResolver(this, core);
        this.conn = new CmaConnect(this);
        core.registerClient(this);
    }

    /** Sets (or with null removes) the SA client that resolves InfiniBand routes. */
    public synchronized void saClient(SaClient sa) {
        this.sa = sa;
    }

    /** Removes {@code gone} if it is the SA client in use (a dynamic reference going away). */
    public synchronized void saClientGone(SaClient gone) {
        if (sa == gone) {
            sa = null;
        }
    }

    /**
     * Adds an address resolver ({@code addr.c}'s view of the interfaces on RDMA ports, e.g. IPoIB's): binding,
     * address resolution and incoming requests ask it first.
     */
    public void addAddrResolver(RdmaAddrResolver r) {
        addrs.add(r);
    }

    public void removeAddrResolver(RdmaAddrResolver r) {
        addrs.remove(r);
    }

    // ------------------------------------------------------------------ devices

    @Override
    public String name() {
        return "rdma_cm";
    }

    /**
     * {@code cma_add_one}: the listeners listen on the new device too (a listener bound to another device's
     * address as well, so that a REQ for its port there is rejected by the RDMA CM, as on every device).
     */
    @Override
    public void add(IbDevice device) {
        synchronized (lock) {
            for (CmaId l : listeners) {
                listenOn(l, device);
            }
        }
    }

    /**
     * {@code cma_process_remove}: DEVICE_REMOVAL to each id on the device, waiting (bounded) for the consumers
     * to release their QPs. Their IB CM ids are left to the IB CM, which drops them with the device (nothing
     * more is sent for them).
     */
    @Override
    public void remove(IbDevice device, Object clientData) {
        List<CmaId> gone = new ArrayList<>();
        synchronized (lock) {
            for (CmaId id : ids) {
                id.listenIds.removeIf(l -> l.device() == device);
                if (id.device == device && !id.destroyed) {
                    gone.add(id);
                    id.ib = null;
                    id.state = CmState.ERROR;
                }
            }
        }
        List<Future<?>> done = new ArrayList<>();
        for (CmaId id : gone) {
            done.add(events.dispatch(id, new RdmaCmEvent(RdmaCmEventType.DEVICE_REMOVAL, id, null, 0, null)));
        }
        if (!Thread.currentThread().getName().equals("rdma-cm")) {
            for (Future<?> f : done) {
                try {
                    f.get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    LOG.log(System.Logger.Level.WARNING, "rdma_cm: a DEVICE_REMOVAL handler did not finish: " + e);
                }
            }
        }
    }

    // ------------------------------------------------------------------ consumer calls

    @Override
    public RdmaCmId createId(RdmaCmEventHandler handler, RdmaPortSpace ps) {
        if (handler == null || ps == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_create_id: handler and port space are required");
        }
        if (ps == RdmaPortSpace.IPOIB) {
            throw new VerbsException(Errno.EOPNOTSUPP, "rdma_create_id: port space " + ps + " is not supported");
        }
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "rdma_create_id: the RDMA CM is stopped");
        }
        CmaId id = new CmaId(this, handler, ps, null);
        synchronized (lock) {
            ids.add(id);
        }
        return id;
    }

    static void require(CmaId id, CmState.Call call) {
        if (id.destroyed) {
            throw new VerbsException(Errno.EINVAL, call.name().toLowerCase() + ": the id is destroyed");
        }
        if (!call.legal.contains(id.state)) {
            throw new VerbsException(Errno.EINVAL, "rdma_" + call.name().toLowerCase() + ": not in state " + id.state);
        }
    }

    void bind(CmaId id, InetSocketAddress addr) {
        resolver.bind(id, addr);
    }

    void resolveAddr(CmaId id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        resolver.resolveAddr(id, src, dst, timeoutMs);
    }

    void resolveRoute(CmaId id, int timeoutMs) {
        resolver.resolveRoute(id, timeoutMs);
    }

    /**
     * {@code rdma_listen}: an IB CM listen id for the port's service ID on every device. A listener bound to
     * one address takes only the REQs to it ({@link CmaIbHandler} rejects the others CONSUMER_DEFINED).
     */
    /**
     * {@code /proc/sys/net/rdma_ucm/max_backlog}'s default: connection requests a listener may have waiting for
     * its handler; more are rejected and counted (REJ_BACKLOG), so a REQ flood cannot queue without bound.
     */
    static final int MAX_BACKLOG = 1024;

    void listen(CmaId id, int backlog) {
        synchronized (lock) {
            require(id, CmState.Call.LISTEN);
            if (id.state == CmState.IDLE) {
                resolver.bindLocked(id, new InetSocketAddress(0));
            }
            for (IbDevice d : core.devices()) {
                if (d.isRegistered()) {
                    listenOn(id, d);
                }
            }
            id.state = CmState.LISTEN;
            id.backlog = backlog > 0 && backlog < MAX_BACKLOG ? backlog : MAX_BACKLOG;
            listeners.add(id);
        }
    }

    /** {@code cma_listen_on_dev}: REQs on {@code device} to the listener's service ID come to {@link CmaIbHandler}. */
    private void listenOn(CmaId l, IbDevice device) {
        try {
            IbCmId lid = ib.createId(device, ibHandler, l);
            lid.listen(l.ps.serviceId(l.local.getPort()), 0);
            l.listenIds.add(lid);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma_cm: cannot listen on " + device.name() + ": " + e);
        }
    }

    QueuePair createQp(CmaId id, ProtectionDomain pd, QpInitAttr attr) {
        return conn.createQp(id, pd, attr);
    }

    void destroyQp(CmaId id) {
        conn.destroyQp(id);
    }

    void connect(CmaId id, RdmaConnParam param) {
        conn.connect(id, param);
    }

    void accept(CmaId id, RdmaConnParam param) {
        conn.accept(id, param);
    }

    void reject(CmaId id, byte[] privateData) {
        conn.reject(id, privateData);
    }

    void disconnect(CmaId id) {
        conn.disconnect(id);
    }

    void destroy(CmaId id) {
        List<CmaId> children = new ArrayList<>();
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
            switch (id.sidr && id.state != CmState.REQ_RCVD ? CmState.IDLE : id.state) {
                // destroying a connected id disconnects it (rdma_destroy_id -> cma_cancel_operation / ib_destroy_cm_id)
                case ESTABLISHED, REP_SENT, DREQ_RCVD, REQ_SENT -> disconnect(id);
                default -> {
                }
            }
            // ib_destroy_cm_id: a request not answered is rejected (REJ or SIDR_REP REJECT)
            closeIb(id);
            id.destroyed = true;
            id.state = CmState.DESTROYING;
            listeners.remove(id);
            ids.remove(id);
            if (id.boundPort != 0) {
                ports.release(id.ps, id.boundPort, id);
            }
            for (CmaId c : ids) {
                if (c.listener == id && c.state == CmState.REQ_RCVD) {
                    children.add(c);
                }
            }
        }
        for (CmaId c : children) {
            destroy(c); // requests nobody will accept any more
        }
    }

    private static void closeIb(CmaId id) {
        try {
            if (id.ib != null) {
                id.ib.close();
            }
            for (IbCmId l : id.listenIds) {
                l.close();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "rdma_destroy_id: " + e); // device gone
        }
        id.listenIds.clear();
    }

    static void toError(QueuePair qp) {
        if (qp != null) {
            try {
                if (qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
                    qp.modify(new QpAttr().state(QpState.ERR));
                }
            } catch (RuntimeException e) {
                // destroyed or device gone: nothing to flush
            }
        }
    }

    // ------------------------------------------------------------------ diagnostics

    /** Ids alive (created, not destroyed), for leak checks. */
    int idCount() {
        synchronized (lock) {
            return ids.size();
        }
    }

    /** Whether an id listens on {@code port} of port space {@code ps} (tests wait for servers with it). */
    boolean listening(RdmaPortSpace ps, int port) {
        synchronized (lock) {
            for (CmaId l : listeners) {
                if (l.ps == ps && l.local != null && l.local.getPort() == port) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The IB CM this service made for itself, or null (tests shorten its retransmissions). */
    IbCmService ownIbCm() {
        return ownIb;
    }

    /** Entries of the IB CM's comm ID tables (connections being set up, connected, or time-waiting). */
    int connTableSize() {
        return ownIb == null ? 0 : ownIb.connTableSize();
    }

    /** The RDMA CM's counters with those of its own IB CM, for tests and diagnostics. */
    Map<CmCounter, Long> counters() {
        Map<CmCounter, Long> m = new EnumMap<>(CmCounter.class);
        m.putAll(counters.snapshot());
        if (ownIb != null) {
            ownIb.counters().forEach((k, v) -> m.merge(k, v, Long::sum));
        }
        return m;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        core.unregisterClient(this);
        events.close();
        if (ownIb != null) {
            ownIb.close();
        }
    }
}
