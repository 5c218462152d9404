package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.cm.ib.IbCmSidrReqParam;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sa.SaException;

/**
 * The RDMA CM ({@code cma.c}): ids, listeners, address and route resolution and event delivery, for RoCE
 * ports and (with an {@link SaClient} for the path records) InfiniBand ports, where addresses are GIDs.
 * Connections run on the IB CM through its API ({@link IbCm}), as any other consumer's; its events come to
 * {@link CmaIbHandler}. One lock guards every id; events are delivered on one thread ("rdma-cm"), in
 * order, outside the lock, so a handler may call back into the CM.
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
    /** How long {@link #close} waits for the queued events, and then for the "rdma-cm" thread to end. */
    private static final long CLOSE_WAIT_MS = 5000;

    final Object lock = new Object();
    private final IbCore core;
    final IbCm ib;
    /** The IB CM this service made for itself (plain-Java use), closed with it; null when it was given one. */
    private final IbCmService ownIb;
    final CmaIbHandler ibHandler = new CmaIbHandler(this);
    private final ScheduledThreadPoolExecutor thread;
    /** The executor's worker ("rdma-cm"), for {@link #close} to wait for its end; null until it starts. */
    private volatile Thread cmThread;
    private final PortSpaces ports = new PortSpaces();
    final List<CmaId> listeners = new ArrayList<>();
    final List<CmaId> ids = new ArrayList<>();
    final CmCounter.Counters counters = new CmCounter.Counters();
    private volatile boolean closed;
    /** The SA client for InfiniBand routes ({@code ib_sa_path_rec_get}), or null: IB routes fail with -ENODEV. */
    private volatile SaClient sa;

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
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "rdma-cm");
            t.setDaemon(true);
            cmThread = t;
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
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

    // ------------------------------------------------------------------ devices

    @Override
    public String name() {
        return "rdma_cm";
    }

    /** {@code cma_add_one}: the wildcard listeners listen on the new device too. */
    @Override
    public void add(IbDevice device) {
        synchronized (lock) {
            for (CmaId l : listeners) {
                if (l.device == null) {
                    listenOn(l, device);
                }
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
            done.add(dispatch(id, new RdmaCmEvent(RdmaCmEventType.DEVICE_REMOVAL, id, null, 0, null)));
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

    private static void require(CmaId id, CmState.Call call) {
        if (id.destroyed) {
            throw new VerbsException(Errno.EINVAL, call.name().toLowerCase() + ": the id is destroyed");
        }
        if (!call.legal.contains(id.state)) {
            throw new VerbsException(Errno.EINVAL, "rdma_" + call.name().toLowerCase() + ": not in state " + id.state);
        }
    }

    void bind(CmaId id, InetSocketAddress addr) {
        synchronized (lock) {
            require(id, CmState.Call.BIND);
            bindLocked(id, addr);
            id.state = CmState.ADDR_BOUND;
        }
    }

    private void bindLocked(CmaId id, InetSocketAddress addr) {
        InetAddress ip = addr.getAddress();
        if (ip != null && !ip.isAnyLocalAddress()) {
            CmaRoute.Endpoint ep = CmaRoute.find(core.devices(), ip);
            if (ep == null) {
                throw new VerbsException(Errno.EADDRNOTAVAIL, "rdma_bind_addr: no RDMA device has " + ip.getHostAddress());
            }
            at(id, ep);
        }
        int port = addr.getPort() != 0 ? ports.reserve(id.ps, addr.getPort(), id) : ports.reserveEphemeral(id.ps, id);
        id.boundPort = port;
        id.local = new InetSocketAddress(ip, port);
    }

    static void at(CmaId id, CmaRoute.Endpoint ep) {
        id.device = ep.device();
        id.port = ep.port();
        id.sgidIndex = ep.gidIndex();
        id.sgid = ep.gid();
        id.lidRouted = ep.device().linkLayer(ep.port()) == LinkLayer.INFINIBAND;
    }

    void resolveAddr(CmaId id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        if (dst == null || dst.getAddress() == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_resolve_addr: no destination");
        }
        synchronized (lock) {
            require(id, CmState.Call.RESOLVE_ADDR);
            if (id.state == CmState.IDLE) {
                bindLocked(id, src != null ? src : new InetSocketAddress(0));
            }
            id.state = CmState.ADDR_QUERY;
            id.remote = dst;
        }
        deliver(id, () -> {
            if (id.state != CmState.ADDR_QUERY) {
                return null;
            }
            int status = id.device == null ? resolveDevice(id, dst.getAddress()) : 0;
            if (status != 0) {
                id.state = id.device != null ? CmState.ADDR_BOUND : CmState.IDLE;
                return new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, status, null);
            }
            id.dgid = Gid.of(dst.getAddress());
            id.state = CmState.ADDR_RESOLVED;
            return new RdmaCmEvent(RdmaCmEventType.ADDR_RESOLVED, id, null, 0, null);
        });
    }

    /**
     * The device port an unbound id reaches {@code dst} from: InfiniBand (AF_IB, the GID as an IPv6 address)
     * the first active IB port with the destination's subnet prefix; otherwise RoCE by the host's routes.
     * 0, or -ENODEV / -ENETUNREACH.
     */
    private int resolveDevice(CmaId id, InetAddress dst) {
        try {
            CmaRoute.Endpoint ep = CmaRoute.ibPortFor(core.devices(), Gid.of(dst));
            if (ep == null) {
                ep = CmaRoute.find(core.devices(), CmaRoute.sourceFor(dst));
            }
            if (ep == null && dst.isLoopbackAddress()) {
                ep = CmaRoute.find(core.devices(), dst); // to a local device
            }
            if (ep == null) {
                return -Errno.ENODEV.value();
            }
            at(id, ep);
            id.local = new InetSocketAddress(ep.gid().toInetAddress(), id.local.getPort());
            return 0;
        } catch (java.io.IOException e) {
            return -Errno.ENETUNREACH.value();
        }
    }

    void resolveRoute(CmaId id, int timeoutMs) {
        synchronized (lock) {
            require(id, CmState.Call.RESOLVE_ROUTE);
            id.state = CmState.ROUTE_QUERY;
            if (id.lidRouted) {
                resolveIbRoute(id, timeoutMs);
                return;
            }
        }
        // RoCE (cma_resolve_iboe_route): the route is the GIDs, no SA; the path MTU is the port's
        deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            int mtu = id.device.queryPort(id.port).activeMtu().code();
            id.route = new IbCmPath(id.port, id.sgidIndex, id.sgid, id.dgid, false, 0, 0, 0, mtu, 0,
                    IBOE_PACKET_LIFETIME, 64, 0, flowLabel(id.local.getPort(), id.remote.getPort()));
            id.state = CmState.ROUTE_RESOLVED;
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        });
    }

    /** {@code rdma_calc_flow_label} as cma.c uses it for RoCEv2: from the two ports of the connection. */
    static int flowLabel(int srcPort, int dstPort) {
        return (srcPort * 31 + dstPort) & 0xfffff;
    }

    /**
     * {@code cma_resolve_ib_route} / {@code cma_query_ib_route}: the PathRecord (SGID, DGID) from the SA is the
     * route; ROUTE_ERROR carries {@code sa_query.c}'s status (-EINVAL when the SA answered an error,
     * -ETIMEDOUT, ...) and the id goes back to ADDR_RESOLVED.
     */
    private void resolveIbRoute(CmaId id, int timeoutMs) {
        SaClient client = sa;
        CompletableFuture<PathRecord> f;
        if (client == null) {
            f = CompletableFuture.failedFuture(new SaException(-1, -Errno.ENODEV.value(), "rdma_cm: no SA client"));
        } else {
            try {
                f = client.pathRecordGet(id.device, id.port, id.sgid, id.dgid, timeoutMs > 0 ? timeoutMs : 2000);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
        }
        f.whenComplete((pr, ex) -> deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            if (ex != null) {
                Throwable c = ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
                int status = c instanceof SaException se ? se.errno()
                        : c instanceof VerbsException ve ? -ve.errno().value() : -Errno.EINVAL.value();
                counters.count(CmCounter.ROUTE_ERROR);
                id.state = CmState.ADDR_RESOLVED;
                return new RdmaCmEvent(RdmaCmEventType.ROUTE_ERROR, id, null, status, null);
            }
            id.route = new IbCmPath(id.port, id.sgidIndex, id.sgid, id.dgid, true, pr.slid, pr.dlid, pr.sl, pr.mtu,
                    pr.rate, pr.packetLifeTime, pr.hopLimit, pr.trafficClass, pr.flowLabel);
            id.state = CmState.ROUTE_RESOLVED;
            counters.count(CmCounter.ROUTE_RESOLVED);
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        }));
    }

    /** {@code rdma_listen}: an IB CM listen id on the id's device, or on every device for a wildcard address. */
    void listen(CmaId id, int backlog) {
        synchronized (lock) {
            require(id, CmState.Call.LISTEN);
            if (id.state == CmState.IDLE) {
                bindLocked(id, new InetSocketAddress(0));
            }
            for (IbDevice d : core.devices()) {
                if (d.isRegistered()) {
                    listenOn(id, d);
                }
            }
            id.state = CmState.LISTEN;
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
        synchronized (lock) {
            require(id, CmState.Call.CREATE_QP);
            if (id.qp != null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the id already has a QP");
            }
            if (id.device == null || pd.device() != id.device) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the PD is not on the id's device "
                        + (id.device == null ? "(none yet)" : id.device.name()));
            }
            QpType want = id.sidr ? QpType.UD : QpType.RC;
            if (attr.qpType() != want) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the " + id.ps + " port space takes " + want
                        + " QPs, not " + attr.qpType());
            }
            QueuePair qp = pd.createQp(attr);
            try {
                if (id.sidr) {
                    // cma_init_ud_qp: INIT with the P_Key index and RDMA_UDP_QKEY, then RTR and RTS (SQ PSN 0)
                    qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port).qkey(RDMA_UDP_QKEY));
                    qp.modify(new QpAttr().state(QpState.RTR));
                    qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
                } else {
                    // cma_init_ib_qp: INIT with the P_Key index and remote READ/WRITE
                    qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port)
                            .accessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
                }
            } catch (RuntimeException e) {
                qp.destroy();
                throw e;
            }
            id.qp = qp;
            return qp;
        }
    }

    void destroyQp(CmaId id) {
        QueuePair qp;
        synchronized (lock) {
            qp = id.qp;
            id.qp = null;
        }
        if (qp != null) {
            qp.destroy();
        }
    }

    /** {@code rdma_connect}: {@code cma_connect_ib} (a REQ) or {@code cma_resolve_ib_udp} (a SIDR_REQ). */
    void connect(CmaId id, RdmaConnParam param) {
        synchronized (lock) {
            require(id, CmState.Call.CONNECT);
            byte[] user = param.privateData();
            int max = id.sidr ? CmaHeader.SIDR_REQ_USER_DATA_SIZE : CmaHeader.REQ_USER_DATA_SIZE;
            if (!id.sidr && id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: create the QP first (rdma_create_qp)");
            }
            if (user.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: private data of " + user.length
                        + " bytes, at most " + max);
            }
            CmaHeader hdr = new CmaHeader(id.local.getAddress(), id.local.getPort(), id.remote.getAddress());
            long serviceId = id.ps.serviceId(id.remote.getPort());
            IbCmId conn = ib.createId(id.device, ibHandler, id);
            try {
                if (id.sidr) {
                    conn.sendSidrReq(new IbCmSidrReqParam().path(id.route).serviceId(serviceId)
                            .privateData(hdr.encodeSidr(user)));
                } else {
                    conn.sendReq(reqParam(id, param, serviceId, hdr.encode(user)));
                }
            } catch (RuntimeException e) {
                conn.close();
                throw e;
            }
            id.param = param;
            id.ib = conn;
            id.state = CmState.REQ_SENT;
        }
    }

    /**
     * The REQ of {@code cma_connect_ib}: the application's parameters, rdma_cm's timeouts, and a random starting
     * PSN (what this side's receive queue expects: the peer sends with it).
     */
    private static IbCmReqParam reqParam(CmaId id, RdmaConnParam param, long serviceId, byte[] privateData) {
        return new IbCmReqParam().primaryPath(id.route).serviceId(serviceId).qpNum(id.qp.qpNum())
                .startingPsn(ThreadLocalRandom.current().nextInt(1 << 24)).privateData(privateData)
                .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                .remoteCmResponseTimeout(CM_RESPONSE_TIMEOUT).localCmResponseTimeout(CM_RESPONSE_TIMEOUT)
                .flowControl(param.flowControl() != 0).retryCount(param.retryCount())
                .rnrRetryCount(param.rnrRetryCount()).maxCmRetries(MAX_CM_RETRIES).srq(param.srq());
    }

    /** {@code rdma_accept}: {@code cma_accept_ib} (the QP to RTR and RTS, then the REP) or a SIDR_REP. */
    void accept(CmaId id, RdmaConnParam param) {
        synchronized (lock) {
            require(id, CmState.Call.ACCEPT);
            if (id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: create the QP first (rdma_create_qp)");
            }
            byte[] pd = param.privateData();
            int max = id.sidr ? SidrRep.PRIVATE_DATA_SIZE : CmRep.PRIVATE_DATA_SIZE;
            if (pd.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: private data of " + pd.length + " bytes, at most " + max);
            }
            id.param = param;
            if (id.sidr) {
                // cma_send_sidr_rep: SUCCESS with the QPN and the Q_Key
                id.ib.sendSidrRep(SidrRep.SUCCESS, id.qp.qpNum(), RDMA_UDP_QKEY, pd);
                id.state = CmState.ESTABLISHED;
                return;
            }
            // cma_modify_qp_rtr / cma_modify_qp_rts: the IB CM's attributes with the accept's PSN and resources
            int psn = ThreadLocalRandom.current().nextInt(1 << 24);
            id.qp.modify(id.ib.initQpAttr(QpState.RTR).rqPsn(psn)
                    .maxDestRdAtomic(Math.max(1, param.responderResources())));
            id.qp.modify(id.ib.initQpAttr(QpState.RTS).rnrRetry(param.rnrRetryCount())
                    .maxRdAtomic(Math.max(1, param.initiatorDepth())));
            id.ib.sendRep(new IbCmRepParam().qpNum(id.qp.qpNum()).startingPsn(psn).privateData(pd)
                    .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                    .flowControl(param.flowControl() != 0).rnrRetryCount(param.rnrRetryCount())
                    .srq(id.qp.srq() != null));
            id.state = CmState.REP_SENT;
        }
    }

    /** {@code rdma_reject}: a REJ (consumer defined) or a SIDR_REP REJECT with the private data. */
    void reject(CmaId id, byte[] privateData) {
        synchronized (lock) {
            require(id, CmState.Call.REJECT);
            byte[] pd = privateData == null ? new byte[0] : privateData;
            int max = id.sidr ? SidrRep.PRIVATE_DATA_SIZE : CmRej.PRIVATE_DATA_SIZE;
            if (pd.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: private data of " + pd.length + " bytes, at most " + max);
            }
            if (id.sidr) {
                id.ib.sendSidrRep(SidrRep.REJECT, 0, 0, pd);
            } else {
                id.ib.sendRej(IbCmRejReason.CONSUMER_DEFINED, null, pd);
            }
            id.state = CmState.ERROR;
        }
    }

    /**
     * {@code rdma_disconnect}: the QP to ERR, then a DREQ (connected), a DREP (the peer's DREQ came) or a REJ
     * (a REQ in flight). A UD id only cancels its SIDR_REQ. If the IB CM has moved on (its event is on the
     * way), nothing is sent.
     */
    void disconnect(CmaId id) {
        synchronized (lock) {
            require(id, CmState.Call.DISCONNECT);
            toError(id.qp);
            try {
                CmState next = switch (id.sidr && id.state != CmState.REQ_SENT ? CmState.IDLE : id.state) {
                    case ESTABLISHED, REP_SENT -> { id.ib.sendDreq(null); yield CmState.DREQ_SENT; }
                    case DREQ_RCVD -> { id.ib.sendDrep(null); yield CmState.TIMEWAIT; }
                    case REQ_SENT -> {
                        if (id.sidr) {
                            id.ib.close(); // cancels the SIDR_REQ
                        } else {
                            id.ib.sendRej(IbCmRejReason.TIMEOUT, null, null); // cancel the connect
                        }
                        yield CmState.ERROR;
                    }
                    default -> id.state; // DREQ_SENT, TIMEWAIT, ERROR: already disconnecting or down
                };
                id.state = next;
            } catch (VerbsException e) {
                LOG.log(System.Logger.Level.DEBUG, "rdma_disconnect: the IB CM moved on: " + e);
            }
        }
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

    // ------------------------------------------------------------------ events

    /**
     * Delivers {@code ev} on the CM thread; a non-zero answer destroys the id (for a request: rejects it).
     * The future is done once the handler has returned (device removal waits for it).
     */
    Future<?> dispatch(CmaId id, RdmaCmEvent ev) {
        try {
            return thread.submit(() -> run(id, ev));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Computes the event under the lock on the CM thread (null: nothing to deliver), then delivers it. */
    private void deliver(CmaId id, Supplier<RdmaCmEvent> under) {
        thread.execute(() -> {
            RdmaCmEvent ev;
            synchronized (lock) {
                if (id.destroyed) {
                    return;
                }
                ev = under.get();
            }
            if (ev != null) {
                run(id, ev);
            }
        });
    }

    private void run(CmaId id, RdmaCmEvent ev) {
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
        }
        int rc;
        try {
            rc = id.handler.handle(id, ev);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma_cm: event handler failed on " + ev + ": " + e, e);
            rc = -1;
        }
        if (rc != 0) {
            destroyQp(id);
            destroy(id);
        } else if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
            synchronized (lock) {
                // cma_ib_req_handler: not accepted or rejected yet -> ib_send_cm_mra(CMA_CM_MRA_SETTING), which
                // with IB_CM_MRA_FLAG_DELAY sends nothing now; duplicate REQs are answered with the MRA
                if (!id.destroyed && !id.sidr && id.state == CmState.REQ_RCVD) {
                    try {
                        id.ib.sendMra(MRA_SERVICE_TIMEOUT | IbCm.MRA_FLAG_DELAY, null);
                    } catch (VerbsException e) {
                        LOG.log(System.Logger.Level.DEBUG, "rdma_cm: no MRA: " + e);
                    }
                }
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
        thread.shutdown();
        if (Thread.currentThread() != cmThread) {
            try {
                if (!thread.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    thread.shutdownNow();
                }
                // the executor counts as terminated just before its worker thread ends: wait for the thread
                // itself, so that no "rdma-cm" thread is left when close returns (as MadLayer.close)
                Thread t = cmThread;
                if (t != null) {
                    t.join(CLOSE_WAIT_MS);
                }
            } catch (InterruptedException e) {
                thread.shutdownNow();
                Thread.currentThread().interrupt();
            }
        } // else closed by a handler: the thread ends once it has run what is queued
        if (ownIb != null) {
            ownIb.close();
        }
    }
}
