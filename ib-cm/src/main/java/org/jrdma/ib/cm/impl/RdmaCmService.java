package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmDrep;
import org.jrdma.ib.cm.wire.CmDreq;
import org.jrdma.ib.cm.wire.CmMra;
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRejReason;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmRtu;
import org.jrdma.ib.cm.wire.CmTimeout;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.cm.wire.SidrReq;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sa.SaException;

/**
 * The RDMA CM ({@code cma.c}) over the IB CM protocol ({@code cm.c}) on QP1, for RoCE ports and (with an
 * {@link SaClient} for the path records) InfiniBand ports, where addresses are GIDs. One lock
 * guards every id and table; events are delivered on one thread ("rdma-cm"), in order, outside the lock,
 * so a handler may call back into the CM. Retransmission of REQ, REP and DREQ is the MAD layer's (a send
 * with a timeout and {@code max_cm_retries}), cancelled when the answer arrives, as {@code cm.c} does.
 */
public final class RdmaCmService implements RdmaCm, IbClient, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ib.cm");
    /** {@code CMA_CM_RESPONSE_TIMEOUT}: 4.096 us * 2^20, about 4.3 s. */
    static final int CM_RESPONSE_TIMEOUT = 20;
    /** {@code CMA_MAX_CM_RETRIES}. */
    static final int MAX_CM_RETRIES = 15;
    /** {@code CMA_IBOE_PACKET_LIFETIME} (18 in 6.1: Linux's REQ carries local ACK timeout 19 over rxe). */
    static final int IBOE_PACKET_LIFETIME = 18;
    /** rxe's {@code local_ca_ack_delay}, what Linux puts in REP's target ACK delay over rxe. */
    static final int TARGET_ACK_DELAY = 15;
    /** Time an id stays in TIMEWAIT (answering duplicate DREQs) before TIMEWAIT_EXIT. */
    static final long TIMEWAIT_MS = Long.getLong("jrdma.cm.timewaitMs", 500);
    /** Retransmission timeout of REQ, REP and DREQ: {@code cm_convert_to_ms(response timeout) + 2 * lifetime}. */
    static final int MAD_TIMEOUT_MS = Integer.getInteger("jrdma.cm.madTimeoutMs",
            (int) (cmTimeoutMs(CM_RESPONSE_TIMEOUT) + 2 * cmTimeoutMs(IBOE_PACKET_LIFETIME)));

    /** {@code CMA_CM_MRA_SETTING} less {@code IB_CM_MRA_FLAG_DELAY}: the service timeout of cma's MRAs (2^24 * 4.096 us, about 67 s). */
    static final int MRA_SERVICE_TIMEOUT = 24;
    /** {@code RDMA_UDP_QKEY}: the Q_Key of every UD QP of the UDP port space. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    final Object lock = new Object();
    private final IbCore core;
    private final MadService mad;
    private final ScheduledThreadPoolExecutor thread;
    /** The executor's worker ("rdma-cm"), for {@link #close} to wait for its end; null until it starts. */
    private volatile Thread cmThread;
    /** Per device: the CM agent of each port (index = port). */
    private final Map<IbDevice, MadAgent[]> agents = new ConcurrentHashMap<>();
    private final Map<Integer, CmaId> byCommId = new HashMap<>();
    /** Passive connections by (remote comm ID, remote CA GUID), for duplicate REQs ({@code cm_insert_remote_id}). */
    private final Map<List<Long>, CmaId> byRemoteId = new HashMap<>();
    private final PortSpaces ports = new PortSpaces();
    private final List<CmaId> listeners = new ArrayList<>();
    private final List<CmaId> ids = new ArrayList<>();
    private final CmCounter.Counters counters = new CmCounter.Counters();
    private volatile boolean closed;
    /** Retransmission timeout and retries of REQ, REP, DREQ and SIDR_REQ (what the MAD layer does; tests shorten them). */
    volatile int madTimeoutMs = MAD_TIMEOUT_MS;
    volatile int madRetries = MAX_CM_RETRIES;

    /** The SA client for InfiniBand routes ({@code ib_sa_path_rec_get}), or null: IB routes fail with -ENODEV. */
    private volatile SaClient sa;

    public RdmaCmService(IbCore core, MadService mad) {
        this(core, mad, null);
    }

    /** With {@code sa} (e.g. {@code new SaClientImpl(mad)}) to resolve routes on InfiniBand ports. */
    public RdmaCmService(IbCore core, MadService mad, SaClient sa) {
        this.core = core;
        this.mad = mad;
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

    /** {@code cm_convert_to_ms}: 4.096 us * 2^t, as a power of two of milliseconds. */
    static long cmTimeoutMs(int t) {
        return 1L << Math.max(t - 8, 0);
    }

    // ------------------------------------------------------------------ devices

    @Override
    public String name() {
        return "rdma_cm";
    }

    @Override
    public void add(IbDevice device) {
        MadAgent[] a = new MadAgent[device.physPortCnt() + 1];
        for (int p = 1; p <= device.physPortCnt(); p++) {
            try {
                final int port = p;
                a[p] = mad.registerAgent(device, p, QpType.GSI,
                        new MadRegistration(Mad.CLASS_CM, CmAttr.CLASS_VERSION, Mad.METHOD_SEND), new MadHandler() {
                            @Override
                            public void recv(MadAgent agent, MadRecv recv) {
                                receive(device, port, agent, recv);
                            }

                            @Override
                            public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
                                sent(send, status);
                            }
                        });
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma_cm: no CM on " + device.name() + "/" + p + ": " + e);
            }
        }
        agents.put(device, a);
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        List<CmaId> gone = new ArrayList<>();
        synchronized (lock) {
            for (CmaId id : ids) {
                if (id.device == device && !id.destroyed) {
                    gone.add(id);
                    id.outstanding = null;
                    id.state = CmState.ERROR;
                    forget(id);
                }
            }
        }
        MadAgent[] a = agents.remove(device);
        if (a != null) {
            for (MadAgent x : a) {
                if (x != null) {
                    x.close();
                }
            }
        }
        // DEVICE_REMOVAL to each id, and wait (bounded) for the consumers to release their QPs
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (CmaId id : gone) {
            done.add(dispatch(id, new RdmaCmEvent(RdmaCmEventType.DEVICE_REMOVAL, id, null, 0, null)));
        }
        if (!Thread.currentThread().getName().equals("rdma-cm")) {
            for (java.util.concurrent.Future<?> f : done) {
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
        id.sidr = ps == RdmaPortSpace.UDP;
        synchronized (lock) {
            ids.add(id);
        }
        return id;
    }

    private void require(CmaId id, CmState.Call call) {
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

    private void at(CmaId id, CmaRoute.Endpoint ep) {
        id.device = ep.device();
        id.port = ep.port();
        id.sgidIndex = ep.gidIndex();
        id.sgid = ep.gid();
        id.ib = ep.device().linkLayer(ep.port()) == LinkLayer.INFINIBAND;
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
        thread.execute(() -> {
            RdmaCmEvent ev;
            synchronized (lock) {
                if (id.destroyed || id.state != CmState.ADDR_QUERY) {
                    return;
                }
                int status = 0;
                try {
                    if (id.device == null) {
                        // InfiniBand (AF_IB, the GID as an IPv6 address): the first active IB port with the
                        // destination's subnet prefix; otherwise RoCE by the host's routes
                        CmaRoute.Endpoint ep = CmaRoute.ibPortFor(core.devices(), Gid.of(dst.getAddress()));
                        if (ep == null) {
                            InetAddress s = CmaRoute.sourceFor(dst.getAddress());
                            ep = CmaRoute.find(core.devices(), s);
                        }
                        if (ep == null && dst.getAddress().isLoopbackAddress()) {
                            ep = CmaRoute.find(core.devices(), dst.getAddress()); // to a local device
                        }
                        if (ep == null) {
                            status = -Errno.ENODEV.value();
                        } else {
                            at(id, ep);
                            id.local = new InetSocketAddress(ep.gid().toInetAddress(), id.local.getPort());
                        }
                    }
                } catch (java.io.IOException e) {
                    status = -Errno.ENETUNREACH.value();
                }
                if (status == 0) {
                    id.dgid = Gid.of(dst.getAddress());
                    id.state = CmState.ADDR_RESOLVED;
                    ev = new RdmaCmEvent(RdmaCmEventType.ADDR_RESOLVED, id, null, 0, null);
                } else {
                    id.state = id.device != null ? CmState.ADDR_BOUND : CmState.IDLE;
                    ev = new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, status, null);
                }
            }
            dispatch(id, ev);
        });
    }

    void resolveRoute(CmaId id, int timeoutMs) {
        synchronized (lock) {
            require(id, CmState.Call.RESOLVE_ROUTE);
            id.state = CmState.ROUTE_QUERY;
            if (id.ib) {
                resolveIbRoute(id, timeoutMs);
                return;
            }
        }
        // RoCE: the route is the GIDs (no SA); the path MTU is the port's
        deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            id.state = CmState.ROUTE_RESOLVED;
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        });
    }

    /**
     * {@code cma_resolve_ib_route} / {@code cma_query_ib_route}: the PathRecord (SGID, DGID) from the SA;
     * ROUTE_RESOLVED keeps DLID, SL, MTU, rate and packet life; ROUTE_ERROR carries {@code sa_query.c}'s
     * status (-EINVAL when the SA answered an error, -ETIMEDOUT, ...) and the id goes back to ADDR_RESOLVED.
     */
    private void resolveIbRoute(CmaId id, int timeoutMs) {
        SaClient client = sa;
        IbDevice dev = id.device;
        int port = id.port;
        Gid sgid = id.sgid;
        Gid dgid = id.dgid;
        java.util.concurrent.CompletableFuture<PathRecord> f;
        if (client == null) {
            f = java.util.concurrent.CompletableFuture.failedFuture(
                    new SaException(-1, -Errno.ENODEV.value(), "rdma_cm: no SA client"));
        } else {
            try {
                f = client.pathRecordGet(dev, port, sgid, dgid, timeoutMs > 0 ? timeoutMs : 2000);
            } catch (RuntimeException e) {
                f = java.util.concurrent.CompletableFuture.failedFuture(e);
            }
        }
        f.whenComplete((pr, ex) -> deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            if (ex != null) {
                Throwable c = ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null
                        ? ex.getCause() : ex;
                int status = c instanceof SaException se ? se.errno()
                        : c instanceof VerbsException ve ? -ve.errno().value() : -Errno.EINVAL.value();
                count(CmCounter.ROUTE_ERROR);
                id.state = CmState.ADDR_RESOLVED;
                return new RdmaCmEvent(RdmaCmEventType.ROUTE_ERROR, id, null, status, null);
            }
            id.slid = pr.slid;
            id.dlid = pr.dlid;
            id.sl = pr.sl;
            id.pathMtu = pr.mtu;
            id.rate = pr.rate;
            id.packetLife = pr.packetLifeTime;
            id.hopLimit = pr.hopLimit;
            id.trafficClass = pr.trafficClass;
            id.flowLabel = pr.flowLabel;
            id.madDlid = pr.dlid;
            id.madSl = pr.sl;
            id.state = CmState.ROUTE_RESOLVED;
            count(CmCounter.ROUTE_RESOLVED);
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        }));
    }

    void listen(CmaId id, int backlog) {
        synchronized (lock) {
            require(id, CmState.Call.LISTEN);
            if (id.state == CmState.IDLE) {
                bindLocked(id, new InetSocketAddress(0));
            }
            id.state = CmState.LISTEN;
            listeners.add(id);
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

    void connect(CmaId id, RdmaConnParam param) {
        synchronized (lock) {
            require(id, CmState.Call.CONNECT);
            MadAgent agent = agent(id);
            if (id.sidr) {
                connectSidr(id, agent, param);
                return;
            }
            if (id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: create the QP first (rdma_create_qp)");
            }
            byte[] user = param.privateData();
            if (user.length > CmaHeader.REQ_USER_DATA_SIZE) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: private data of " + user.length
                        + " bytes, at most " + CmaHeader.REQ_USER_DATA_SIZE);
            }
            id.param = param;
            id.localCommId = newCommId(id);
            // a CM message's starting PSN is the one its sender's receive queue expects (the peer sends
            // with it): cm.c sets rq_psn from its own REQ/REP and sq_psn from the peer's
            id.startingPsn = ThreadLocalRandom.current().nextInt(1 << 24);
            id.tid = cmTid(agent, id.localCommId);
            Mtu mtu = id.device.queryPort(id.port).activeMtu();
            CmPath primary;
            if (id.ib) {
                // cm_format_req for IB: the path's LIDs, SL, rate, packet life; subnet local when hop limit <= 1;
                // the local ACK timeout from this CA's ack delay and the path's packet life
                id.ackTimeout = cmAckTimeout(id.device.queryDevice().localCaAckDelay(), id.packetLife);
                mtu = Mtu.ofCode(id.pathMtu);
                primary = new CmPath().localLid(id.slid).remoteLid(id.dlid).localGid(id.sgid).remoteGid(id.dgid)
                        .flowLabel(id.flowLabel).packetRate(id.rate).trafficClass(id.trafficClass)
                        .hopLimit(id.hopLimit).sl(id.sl).subnetLocal(id.hopLimit <= 1)
                        .localAckTimeout(id.ackTimeout);
            } else {
                id.ackTimeout = ackTimeout();
                primary = new CmPath().localLid(0xffff).remoteLid(0xffff).localGid(id.sgid).remoteGid(id.dgid)
                        .flowLabel(flowLabel(id.local.getPort(), id.remote.getPort())).packetRate(0).hopLimit(64)
                        .localAckTimeout(id.ackTimeout);
            }
            CmReq req = new CmReq().localCommId(id.localCommId).serviceId(id.ps.serviceId(id.remote.getPort()))
                    .localCaGuid(id.device.nodeGuid()).localQkey(0).localQpn(id.qp.qpNum())
                    .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                    .remoteCmResponseTimeout(CM_RESPONSE_TIMEOUT).transportType(0).flowControl(param.flowControl() != 0)
                    .startingPsn(id.startingPsn).localCmResponseTimeout(CM_RESPONSE_TIMEOUT)
                    .retryCount(param.retryCount()).pkey(0xffff).pathMtu(mtu.code())
                    .rnrRetryCount(param.rnrRetryCount()).maxCmRetries(MAX_CM_RETRIES).srq(param.srq())
                    .primaryPath(primary)
                    .privateData(new CmaHeader(id.local.getAddress(), id.local.getPort(), id.remote.getAddress())
                            .encode(user));
            id.state = CmState.REQ_SENT;
            id.outstanding = send(id, agent, req.encode(id.tid), id.dgid, madTimeoutMs, madRetries);
            byCommId.put(id.localCommId, id);
            count(CmCounter.REQ_SENT);
        }
    }

    /** {@code cma_resolve_ib_udp}: a SIDR_REQ with the CMA header; ESTABLISHED (or UNREACHABLE) follows the SIDR_REP. */
    private void connectSidr(CmaId id, MadAgent agent, RdmaConnParam param) {
        byte[] user = param.privateData();
        if (user.length > CmaHeader.SIDR_REQ_USER_DATA_SIZE) {
            throw new VerbsException(Errno.EINVAL, "rdma_connect: private data of " + user.length
                    + " bytes, at most " + CmaHeader.SIDR_REQ_USER_DATA_SIZE);
        }
        id.param = param;
        id.localCommId = newCommId(id);
        id.tid = cmTid(agent, id.localCommId);
        SidrReq req = new SidrReq().requestId(id.localCommId).pkey(0xffff).serviceId(id.ps.serviceId(id.remote.getPort()))
                .privateData(new CmaHeader(id.local.getAddress(), id.local.getPort(), id.remote.getAddress())
                        .encodeSidr(user));
        id.state = CmState.REQ_SENT;
        id.outstanding = send(id, agent, req.encode(id.tid), id.dgid, madTimeoutMs, madRetries);
        byCommId.put(id.localCommId, id);
        count(CmCounter.SIDR_REQ_SENT);
    }

    /** {@code cm_form_tid}: the agent's hi_tid above the local comm ID as it lies in memory (little-endian). */
    static long cmTid(MadAgent agent, int localCommId) {
        return (long) agent.hiTid() << 32 | (Integer.reverseBytes(localCommId) & 0xffffffffL);
    }

    /** {@code rdma_calc_flow_label} as cma.c uses it for RoCEv2: from the two ports of the connection. */
    static int flowLabel(int srcPort, int dstPort) {
        return (srcPort * 31 + dstPort) & 0xfffff;
    }

    /** {@code cm_ack_timeout(ca_ack_delay, packet_life_time)}: the QP's local ACK timeout. */
    static int ackTimeout() {
        return cmAckTimeout(TARGET_ACK_DELAY, IBOE_PACKET_LIFETIME);
    }

    static int cmAckTimeout(int caAckDelay, int packetLifeTime) {
        int t = packetLifeTime + 1; // the round trip: twice the lifetime is one more in the exponent
        if (t >= caAckDelay) {
            t += caAckDelay >= t - 1 ? 1 : 0;
        } else {
            t = caAckDelay + (t >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, t);
    }

    void accept(CmaId id, RdmaConnParam param) {
        synchronized (lock) {
            require(id, CmState.Call.ACCEPT);
            if (id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: create the QP first (rdma_create_qp)");
            }
            if (id.sidr) {
                byte[] pd = param.privateData();
                if (pd.length > SidrRep.PRIVATE_DATA_SIZE) {
                    throw new VerbsException(Errno.EINVAL, "rdma_accept: private data of " + pd.length
                            + " bytes, at most " + SidrRep.PRIVATE_DATA_SIZE);
                }
                // cma_send_sidr_rep: SUCCESS with the QPN and the Q_Key
                sendSidrRep(id, SidrRep.SUCCESS, id.qp.qpNum(), RDMA_UDP_QKEY, pd);
                id.param = param;
                id.state = CmState.ESTABLISHED;
                forget(id);
                return;
            }
            byte[] pd = param.privateData();
            if (pd.length > CmRep.PRIVATE_DATA_SIZE) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: private data of " + pd.length + " bytes, at most "
                        + CmRep.PRIVATE_DATA_SIZE);
            }
            MadAgent agent = agent(id);
            CmReq req = id.req;
            id.param = param;
            id.startingPsn = ThreadLocalRandom.current().nextInt(1 << 24);
            Mtu mtu = Mtu.ofCode(Math.min(req.pathMtu(), id.device.queryPort(id.port).activeMtu().code()));
            // cma_modify_qp_rtr and cma_modify_qp_rts, before the REP goes out (cma_accept_ib)
            id.qp.modify(new QpAttr().state(QpState.RTR)
                    .av(qpAv(id)).pathMtu(mtu)
                    .destQpNum(req.localQpn()).rqPsn(id.startingPsn)
                    .maxDestRdAtomic(Math.max(1, param.responderResources())).minRnrTimer(12));
            id.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(req.startingPsn())
                    .timeout(req.primaryPath().localAckTimeout()).retryCnt(req.retryCount())
                    .rnrRetry(param.rnrRetryCount()).maxRdAtomic(Math.max(1, param.initiatorDepth())));
            id.remoteQpn = req.localQpn();
            CmRep rep = new CmRep().localCommId(id.localCommId).remoteCommId(id.remoteCommId).localQkey(0)
                    .localQpn(id.qp.qpNum()).startingPsn(id.startingPsn)
                    .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                    .targetAckDelay(TARGET_ACK_DELAY).failoverAccepted(0).flowControl(param.flowControl() != 0)
                    .rnrRetryCount(param.rnrRetryCount()).srq(id.qp.srq() != null)
                    .localCaGuid(id.device.nodeGuid()).privateData(pd);
            id.state = CmState.REP_SENT;
            id.mraPending = false;
            id.outstanding = send(id, agent, rep.encode(id.tid), id.dgid, madTimeoutMs,
                    Math.min(madRetries, req.maxCmRetries()));
            id.lastReply = id.outstanding;
            count(CmCounter.REP_SENT);
        }
    }

    void reject(CmaId id, byte[] privateData) {
        synchronized (lock) {
            require(id, CmState.Call.REJECT);
            byte[] pd = privateData == null ? new byte[0] : privateData;
            if (id.sidr) {
                if (pd.length > SidrRep.PRIVATE_DATA_SIZE) {
                    throw new VerbsException(Errno.EINVAL, "rdma_reject: private data of " + pd.length
                            + " bytes, at most " + SidrRep.PRIVATE_DATA_SIZE);
                }
                sendSidrRep(id, SidrRep.REJECT, 0, 0, pd);
                id.state = CmState.ERROR;
                forget(id);
                return;
            }
            if (pd.length > CmRej.PRIVATE_DATA_SIZE) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: private data of " + pd.length + " bytes, at most "
                        + CmRej.PRIVATE_DATA_SIZE);
            }
            sendRej(id, id.tid, id.localCommId, id.remoteCommId,
                    CmRejReason.CONSUMER_DEFINED, 0, pd);
            id.state = CmState.ERROR;
            forget(id);
        }
    }

    void disconnect(CmaId id) {
        synchronized (lock) {
            require(id, CmState.Call.DISCONNECT);
            toError(id.qp);
            if (id.sidr) {
                // a UD id has no connection: rdma_disconnect only moves the QP to ERR
                if (id.state == CmState.REQ_SENT) {
                    cancelOutstanding(id);
                    id.state = CmState.ERROR;
                    forget(id);
                }
                return;
            }
            switch (id.state) {
                case ESTABLISHED, REP_SENT -> {
                    cancelOutstanding(id);
                    MadAgent agent = agent(id);
                    id.dreqTid = cmTid(agent, id.localCommId);
                    CmDreq dreq = new CmDreq().localCommId(id.localCommId).remoteCommId(id.remoteCommId)
                            .remoteQpn(id.remoteQpn);
                    id.state = CmState.DREQ_SENT;
                    id.outstanding = send(id, agent, dreq.encode(id.dreqTid), id.dgid, madTimeoutMs, madRetries);
                    count(CmCounter.DREQ_SENT);
                }
                case DREQ_RCVD -> {
                    sendDrep(id);
                    enterTimewait(id);
                }
                case REQ_SENT -> {
                    // cancel the connect (ib_send_cm_rej with TIMEOUT... cm.c sends REJ for a REQ in flight)
                    cancelOutstanding(id);
                    sendRej(id, id.tid, id.localCommId, 0,
                            CmRejReason.TIMEOUT, 0, new byte[0]);
                    id.state = CmState.ERROR;
                    forget(id);
                }
                default -> {
                    // DREQ_SENT, TIMEWAIT, ERROR: already disconnecting or down
                }
            }
        }
    }

    void destroy(CmaId id) {
        List<CmaId> children = new ArrayList<>();
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
            CmState was = id.state;
            switch (id.sidr && id.state != CmState.REQ_RCVD ? CmState.IDLE : id.state) {
                case ESTABLISHED, REP_SENT, DREQ_RCVD, REQ_SENT -> {
                    // destroying a connected id disconnects it (rdma_destroy_id -> cma_cancel_operation / ib_destroy_cm_id)
                    try {
                        disconnect(id);
                    } catch (RuntimeException e) {
                        // device gone
                    }
                }
                case REQ_RCVD -> {
                    if (id.sidr) {
                        sendSidrRep(id, SidrRep.REJECT, 0, 0, new byte[0]); // cm_destroy_id: IB_CM_SIDR_REQ_RCVD
                    } else {
                        sendRej(id, id.tid, id.localCommId,
                                id.remoteCommId, CmRejReason.CONSUMER_DEFINED, 0, new byte[0]);
                    }
                }
                default -> {
                }
            }
            cancelOutstanding(id);
            CmState after = id.state;
            id.destroyed = true;
            id.state = CmState.DESTROYING;
            listeners.remove(id);
            ids.remove(id);
            if (was != CmState.TIMEWAIT && after != CmState.TIMEWAIT) {
                forget(id);
            } // else: the comm IDs stay known (answering duplicates as for a gone id) until the time wait ends

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

    private void forget(CmaId id) {
        if (id.localCommId != 0 && byCommId.get(id.localCommId) == id && id.state != CmState.TIMEWAIT) {
            byCommId.remove(id.localCommId);
        }
        if (id.req != null && id.state != CmState.TIMEWAIT) {
            byRemoteId.remove(List.of((long) id.remoteCommId, id.remoteCaGuid), id);
        }
    }

    private void toError(QueuePair qp) {
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

    // ------------------------------------------------------------------ sending

    private MadAgent agentOrNull(CmaId id) {
        MadAgent[] a = id.device == null ? null : agents.get(id.device);
        return a == null || id.port >= a.length ? null : a[id.port];
    }

    private MadAgent agent(CmaId id) {
        MadAgent[] a = id.device == null ? null : agents.get(id.device);
        if (a == null || id.port >= a.length || a[id.port] == null) {
            throw new VerbsException(Errno.ENODEV, "rdma_cm: no CM agent on " + (id.device == null ? "(no device)"
                    : id.device.name() + "/" + id.port));
        }
        return a[id.port];
    }

    /**
     * The QP's address vector to the peer ({@code cm_init_av_by_path}): RoCE a GRH to the peer's GID;
     * InfiniBand the path's DLID, SL and rate, a GRH only when the path has a hop limit (the SA's paths
     * inside the subnet have 0; the REQ then says subnet local).
     */
    static AhAttr qpAv(CmaId id) {
        if (!id.ib) {
            return new AhAttr().portNum(id.port).grh(id.dgid, id.sgidIndex);
        }
        AhAttr av = new AhAttr().portNum(id.port).dlid(id.dlid).sl(id.sl).staticRate(id.rate);
        if (id.hopLimit > 0) { // ib_init_ah_attr_from_path: a GRH when the path has a hop limit
            av.grh(id.dgid, id.sgidIndex);
        }
        return av;
    }

    /** Where the id's CM MADs go: RoCE the peer's GID; InfiniBand LID-routed (the path, or the REQ's SLID and SL). */
    static AhAttr madAv(CmaId id) {
        if (!id.ib) {
            return new AhAttr().portNum(id.port).grh(id.dgid, id.sgidIndex);
        }
        return new AhAttr().portNum(id.port).dlid(id.madDlid).sl(id.madSl);
    }

    /** The address vector back to the sender of {@code r}: the GRH's source on RoCE, its SLID and SL on IB. */
    private static AhAttr replyAv(IbDevice dev, int port, MadRecv r, Gid to, int sgidIndex) {
        if (r.sgid() == null && dev.linkLayer(port) == LinkLayer.INFINIBAND) {
            return new AhAttr().portNum(port).dlid(r.slid()).sl(r.sl());
        }
        return to == null ? null : new AhAttr().portNum(port).grh(to, sgidIndex);
    }

    private MadSend send(CmaId id, MadAgent agent, Mad m, Gid to, int timeoutMs, int retries) {
        AhAttr av = id != null && id.ib ? madAv(id)
                : new AhAttr().portNum(agent.port()).grh(to, id == null ? 0 : id.sgidIndex);
        MadSend s = new MadSend(m).ah(av)
                .timeoutMs(timeoutMs).retries(retries).context(id);
        agent.send(s);
        return s;
    }

    private void cancelOutstanding(CmaId id) {
        MadSend s = id.outstanding;
        id.outstanding = null;
        if (s != null) {
            MadAgent[] a = id.device == null ? null : agents.get(id.device);
            if (a != null && id.port < a.length && a[id.port] != null) {
                a[id.port].cancel(s);
            }
        }
    }

    /** A REJ to the id's peer. */
    private void sendRej(CmaId id, long tid, int localCommId, int remoteCommId, CmRejReason reason,
            int messageRejected, byte[] privateData) {
        if (id.device == null || (!id.ib && id.dgid == null)) {
            return;
        }
        sendRej(id.device, id.port, madAv(id), tid, localCommId, remoteCommId, reason, messageRejected, privateData);
    }

    private void sendRej(IbDevice dev, int port, AhAttr av, long tid, int localCommId, int remoteCommId,
            CmRejReason reason, int messageRejected, byte[] privateData) {
        MadAgent[] a = dev == null ? null : agents.get(dev);
        if (a == null || port >= a.length || a[port] == null || av == null) {
            return;
        }
        CmRej rej = new CmRej().localCommId(localCommId).remoteCommId(remoteCommId).messageRejected(messageRejected)
                .reason(reason.code()).privateData(privateData);
        try {
            a[port].send(new MadSend(rej.encode(tid)).ah(av));
            count(CmCounter.REJ_SENT);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    private void sendDrep(CmaId id) {
        try {
            MadAgent agent = agent(id);
            CmDrep drep = new CmDrep().localCommId(id.localCommId).remoteCommId(id.remoteCommId);
            id.lastReply = send(id, agent, drep.encode(id.dreqTid), id.dgid, 0, 0);
            count(CmCounter.DREP_SENT);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    private void enterTimewait(CmaId id) {
        id.state = CmState.TIMEWAIT;
        thread.schedule(() -> {
            synchronized (lock) {
                if (byCommId.get(id.localCommId) == id) {
                    byCommId.remove(id.localCommId);
                }
                if (id.req != null) {
                    byRemoteId.remove(List.of((long) id.remoteCommId, id.remoteCaGuid), id);
                }
                if (id.destroyed || id.state != CmState.TIMEWAIT) {
                    return;
                }
            }
            dispatch(id, new RdmaCmEvent(RdmaCmEventType.TIMEWAIT_EXIT, id, null, 0, null));
        }, TIMEWAIT_MS, TimeUnit.MILLISECONDS);
    }

    private int newCommId(CmaId id) {
        int c;
        do {
            c = ThreadLocalRandom.current().nextInt();
        } while (c == 0 || byCommId.containsKey(c));
        return c;
    }

    /** A send finished: a REQ, REP or DREQ that was never answered times the exchange out. */
    void sent(MadSend send, WcStatus status) {
        if (status == WcStatus.SUCCESS || status == WcStatus.WR_FLUSH_ERR || !(send.context() instanceof CmaId id)) {
            return;
        }
        RdmaCmEvent ev;
        synchronized (lock) {
            if (id.outstanding != send || id.destroyed) {
                return;
            }
            id.outstanding = null;
            count(CmCounter.TIMEOUTS);
            if (id.sidr) {
                if (id.state != CmState.REQ_SENT) {
                    return;
                }
                // cma_sidr_rep_handler: IB_CM_SIDR_REQ_ERROR -> UNREACHABLE, -ETIMEDOUT
                id.state = CmState.ERROR;
                forget(id);
                ev = new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, -Errno.ETIMEDOUT.value(), null);
                dispatch(id, ev);
                return;
            }
            switch (id.state) {
                case REQ_SENT, REP_SENT -> {
                    // cma: IB_CM_REQ_ERROR / IB_CM_REP_ERROR -> UNREACHABLE, -ETIMEDOUT
                    sendRej(id, id.tid, id.localCommId, id.remoteCommId,
                            CmRejReason.TIMEOUT, id.state == CmState.REQ_SENT ? 0 : 1, new byte[0]);
                    id.state = CmState.ERROR;
                    toError(id.qp);
                    forget(id);
                    ev = new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, -Errno.ETIMEDOUT.value(), null);
                }
                case DREQ_SENT -> {
                    enterTimewait(id);
                    ev = new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null);
                }
                default -> {
                    return;
                }
            }
        }
        dispatch(id, ev);
    }

    // ------------------------------------------------------------------ receiving

    void receive(IbDevice dev, int port, MadAgent agent, MadRecv r) {
        try {
            Mad m = r.mad();
            if (m.classVersion() != CmAttr.CLASS_VERSION || m.method() != Mad.METHOD_SEND) {
                count(CmCounter.DROPPED_BAD_HEADER);
                return;
            }
            count(CmCounter.RCVD);
            switch (m.attrId()) {
                case CmAttr.REQ -> onReq(dev, port, agent, r, CmReq.decode(m));
                case CmAttr.REP -> onRep(dev, port, r, CmRep.decode(m));
                case CmAttr.RTU -> onRtu(CmRtu.decode(m));
                case CmAttr.REJ -> onRej(CmRej.decode(m));
                case CmAttr.DREQ -> onDreq(dev, port, agent, r, CmDreq.decode(m));
                case CmAttr.DREP -> onDrep(CmDrep.decode(m));
                case CmAttr.MRA -> onMra(CmMra.decode(m));
                case CmAttr.SIDR_REQ -> onSidrReq(dev, port, agent, r, SidrReq.decode(m));
                case CmAttr.SIDR_REP -> onSidrRep(SidrRep.decode(m));
                // cm_lap_handler / cm_apr_handler: alternate paths are not supported over RoCE
                case CmAttr.LAP, CmAttr.APR -> count(CmCounter.DROPPED_UNSUPPORTED_ATTR);
                default -> count(CmCounter.DROPPED_UNKNOWN_ATTR);
            }
        } catch (IllegalArgumentException e) {
            count(CmCounter.DROPPED_MALFORMED); // a field out of its range (the codecs check every one)
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm: dropped a malformed CM MAD: " + e);
        } catch (RuntimeException e) {
            count(CmCounter.DROPPED_ERROR);
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm: dropped a CM MAD: " + e, e);
        }
    }

    private void onReq(IbDevice dev, int port, MadAgent agent, MadRecv r, CmReq req) {
        Gid from = req.primaryPath().localGid();
        if (r.sgid() != null) {
            from = r.sgid(); // the GRH is what answers go to
        }
        CmaId listener;
        CmaId conn;
        synchronized (lock) {
            List<Long> key = List.of((long) req.localCommId(), req.localCaGuid());
            CmaId dup = byRemoteId.get(key);
            if (dup != null) {
                // cm_dup_req_handler: REQ_RCVD drops it, MRA_REQ_SENT resends the MRA, TIMEWAIT rejects it as
                // stale; REP_SENT drops it (the REP is being retransmitted)
                count(CmCounter.DUP_REQ);
                if (dup.destroyed) {
                    return;
                }
                if (dup.state == CmState.TIMEWAIT) {
                    sendRej(dev, port, replyAv(dev, port, r, from, dup.sgidIndex), r.mad().tid(), dup.localCommId, req.localCommId(),
                            CmRejReason.STALE_CONN, 0, new byte[0]);
                } else if (dup.state == CmState.REQ_RCVD && dup.mraPending) {
                    sendMra(dup, CmMra.MSG_REQ);
                }
                return;
            }
            CmaId stale = liveByRemoteQpn(req.localQpn(), req.localCaGuid());
            if (stale != null) {
                // cm_match_req / cm_insert_remote_qpn: a new REQ from a QP we are connected to: the peer lost
                // that connection. Reject the REQ as stale, and disconnect the old connection
                count(CmCounter.REJ_STALE_CONN);
                sendRej(dev, port, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), CmRejReason.STALE_CONN, 0,
                        new byte[0]);
                if (stale.state == CmState.ESTABLISHED) {
                    try {
                        disconnect(stale);
                    } catch (RuntimeException e) {
                        count(CmCounter.SEND_FAILED);
                    }
                }
                return;
            }
            if (!hasListener(req.serviceId(), false)) {
                // cm_match_req: no listener on the service ID
                count(CmCounter.REJ_NO_LISTENER);
                sendRej(dev, port, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), CmRejReason.INVALID_SERVICE_ID, 0,
                        new byte[0]);
                return;
            }
            if (req.transportType() != 0) {
                count(CmCounter.REJ_BAD_TRANSPORT);
                sendRej(dev, port, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), CmRejReason.INVALID_TRANSPORT_TYPE, 0,
                        new byte[0]);
                return;
            }
            CmaHeader hdr;
            try {
                hdr = CmaHeader.decode(req.privateData());
            } catch (IllegalArgumentException e) {
                // cma_ib_req_handler fails (cma_save_ip_info: bad cma_version / IP version): cm.c destroys the
                // new cm_id in REQ_RCVD, which rejects with CONSUMER_DEFINED
                count(CmCounter.REJ_BAD_CMA_HEADER);
                sendRej(dev, port, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), CmRejReason.CONSUMER_DEFINED, 0,
                        new byte[0]);
                return;
            }
            CmaRoute.Endpoint here = CmaRoute.find(List.of(dev), hdr.dstAddr());
            listener = here == null ? null : findListener(req.serviceId(), hdr.dstAddr(), dev, here);
            if (listener == null || listener.sidr) {
                // a listener on the service ID, but none for this address: cma's handler fails -> CONSUMER_DEFINED
                count(CmCounter.REJ_NO_LISTENER);
                sendRej(dev, port, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), CmRejReason.CONSUMER_DEFINED, 0,
                        new byte[0]);
                return;
            }
            conn = new CmaId(this, listener.handler, listener.ps, listener);
            conn.context = listener.context;
            at(conn, here);
            conn.local = new InetSocketAddress(hdr.dstAddr(), listener.local.getPort());
            conn.remote = new InetSocketAddress(hdr.srcAddr(), hdr.port());
            conn.dgid = from;
            if (conn.ib) {
                // cm_req_handler: answers go back to the REQ's SLID (cm_init_av_for_response); the QP's path is
                // the REQ's primary path seen from this side (cm_format_paths_from_req)
                CmPath pp = req.primaryPath();
                conn.madDlid = r.slid();
                conn.madSl = r.sl();
                conn.slid = pp.remoteLid();
                conn.dlid = pp.localLid();
                conn.sl = pp.sl();
                conn.pathMtu = req.pathMtu();
                conn.rate = pp.packetRate();
                conn.hopLimit = pp.hopLimit();
                conn.trafficClass = pp.trafficClass();
                conn.flowLabel = pp.flowLabel();
                conn.packetLife = Math.max(0, pp.localAckTimeout() - 1);
            }
            conn.req = req;
            conn.tid = r.mad().tid();
            conn.remoteCommId = req.localCommId();
            conn.remoteCaGuid = req.localCaGuid();
            conn.remoteQpn = req.localQpn();
            conn.localCommId = newCommId(conn);
            conn.state = CmState.REQ_RCVD;
            ids.add(conn);
            byCommId.put(conn.localCommId, conn);
            byRemoteId.put(key, conn);
            count(CmCounter.REQ_RCVD);
        }
        RdmaConnParam p = new RdmaConnParam().privateData(CmaHeader.userData(req.privateData()))
                .responderResources(req.responderResources()).initiatorDepth(req.initiatorDepth())
                .flowControl(req.flowControl() ? 1 : 0).retryCount(req.retryCount()).rnrRetryCount(req.rnrRetryCount())
                .srq(req.srq()).qpNum(req.localQpn());
        dispatch(conn, new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, conn, listener, 0, p));
    }

    private boolean hasListener(long serviceId, boolean sidr) {
        for (CmaId l : listeners) {
            if (l.sidr == sidr && l.ps.serviceId(l.local.getPort()) == serviceId) {
                return true;
            }
        }
        return false;
    }

    /** The live (or time-waiting) connection to remote QP {@code qpn} of CA {@code caGuid} ({@code cm_insert_remote_qpn}). */
    private CmaId liveByRemoteQpn(int qpn, long caGuid) {
        for (CmaId c : ids) {
            if (!c.sidr && c.remoteCaGuid == caGuid && c.remoteQpn == qpn && !c.destroyed) {
                switch (c.state) {
                    case REQ_RCVD, REP_SENT, ESTABLISHED, DREQ_SENT, DREQ_RCVD, TIMEWAIT -> {
                        return c;
                    }
                    default -> {
                    }
                }
            }
        }
        return null;
    }

    private CmaId findListener(long serviceId, InetAddress dst, IbDevice dev, CmaRoute.Endpoint here) {
        CmaId wildcard = null;
        for (CmaId l : listeners) {
            if (l.ps.serviceId(l.local.getPort()) != serviceId) {
                continue;
            }
            InetAddress a = l.local.getAddress();
            if (a == null || a.isAnyLocalAddress()) {
                wildcard = l;
            } else if (a.equals(dst) && (l.device == null || l.device == dev)) {
                return l;
            }
        }
        return wildcard;
    }

    private void onRep(IbDevice dev, int port, MadRecv r, CmRep rep) {
        CmaId id;
        RdmaCmEvent ev;
        synchronized (lock) {
            id = byCommId.get(rep.remoteCommId());
            if (id == null || id.destroyed || id.sidr) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            if (id.state == CmState.ESTABLISHED && id.lastReply != null) {
                resend(id, id.lastReply); // a duplicate REP: the RTU was lost
                return;
            }
            if (id.state != CmState.REQ_SENT) {
                count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            cancelOutstanding(id);
            id.remoteCommId = rep.localCommId();
            id.remoteCaGuid = rep.localCaGuid();
            id.remoteQpn = rep.localQpn();
            RdmaConnParam mine = id.param;
            try {
                Mtu mtu = id.device.queryPort(id.port).activeMtu();
                if (id.ib) {
                    mtu = Mtu.ofCode(Math.min(id.pathMtu, mtu.code()));
                }
                id.qp.modify(new QpAttr().state(QpState.RTR)
                        .av(qpAv(id)).pathMtu(mtu)
                        .destQpNum(rep.localQpn()).rqPsn(id.startingPsn)
                        .maxDestRdAtomic(Math.max(1, mine.responderResources())).minRnrTimer(12));
                id.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(rep.startingPsn()).timeout(id.ackTimeout)
                        .retryCnt(mine.retryCount()).rnrRetry(rep.rnrRetryCount())
                        .maxRdAtomic(Math.max(1, Math.min(mine.initiatorDepth(), rep.responderResources()))));
            } catch (RuntimeException e) {
                // cma: a QP that cannot be connected rejects the REP
                sendRej(id, id.tid, id.localCommId, id.remoteCommId,
                        CmRejReason.CONSUMER_DEFINED, 1, new byte[0]);
                id.state = CmState.ERROR;
                forget(id);
                ev = new RdmaCmEvent(RdmaCmEventType.CONNECT_ERROR, id, null, -Errno.EINVAL.value(), null);
                dispatch(id, ev);
                return;
            }
            CmRtu rtu = new CmRtu().localCommId(id.localCommId).remoteCommId(id.remoteCommId);
            id.lastReply = send(id, agent(id), rtu.encode(id.tid), id.dgid, 0, 0);
            id.state = CmState.ESTABLISHED;
            count(CmCounter.ESTABLISHED);
            ev = new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0,
                    new RdmaConnParam().privateData(rep.privateData()).responderResources(rep.responderResources())
                            .initiatorDepth(rep.initiatorDepth()).flowControl(rep.flowControl() ? 1 : 0)
                            .rnrRetryCount(rep.rnrRetryCount()).srq(rep.srq()).qpNum(rep.localQpn()));
        }
        dispatch(id, ev);
    }

    private void resend(CmaId id, MadSend s) {
        try {
            agent(id).send(new MadSend(s.mad()).ah(s.ah()));
            count(CmCounter.DUP_ANSWERED);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    private void onRtu(CmRtu rtu) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(rtu.remoteCommId());
            if (id == null || id.destroyed || id.state != CmState.REP_SENT || id.remoteCommId != rtu.localCommId()) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            cancelOutstanding(id);
            id.state = CmState.ESTABLISHED;
            count(CmCounter.ESTABLISHED);
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0, null));
    }

    private void onRej(CmRej rej) {
        CmaId id;
        RdmaCmEvent ev;
        synchronized (lock) {
            id = byCommId.get(rej.remoteCommId());
            if (id == null || id.destroyed || id.sidr) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            CmState was = id.state;
            if (was != CmState.REQ_SENT && was != CmState.REP_SENT && was != CmState.ESTABLISHED) {
                count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            cancelOutstanding(id);
            toError(id.qp);
            id.state = CmState.ERROR;
            forget(id);
            count(CmCounter.REJ_RCVD);
            if (was == CmState.ESTABLISHED) {
                ev = new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null);
            } else if (rej.reason() == CmRejReason.TIMEOUT.code()) {
                ev = new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, -Errno.ETIMEDOUT.value(), null);
            } else {
                ev = new RdmaCmEvent(RdmaCmEventType.REJECTED, id, null, rej.reason(),
                        new RdmaConnParam().privateData(rej.privateData()));
            }
        }
        dispatch(id, ev);
    }

    private void onDreq(IbDevice dev, int port, MadAgent agent, MadRecv r, CmDreq dreq) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(dreq.remoteCommId());
            if (id == null || id.destroyed || id.sidr || id.remoteCommId != dreq.localCommId()) {
                // cm_dreq_handler -> cm_issue_drep: a DREQ for an unknown connection is answered with a DREP
                // (comm IDs swapped, the DREQ's TID) so that the peer stops retrying
                count(CmCounter.DREQ_UNKNOWN_CONN);
                CmDrep drep = new CmDrep().localCommId(dreq.remoteCommId()).remoteCommId(dreq.localCommId());
                try {
                    agent.send(new MadSend(drep.encode(r.mad().tid())).ah(agent.ahAttrFromWc(r)).remoteQpn(r.srcQp()));
                    count(CmCounter.DREP_SENT);
                } catch (RuntimeException e) {
                    count(CmCounter.SEND_FAILED);
                }
                return;
            }
            if (id.qp != null && id.qp.qpNum() != dreq.remoteQpn()) {
                count(CmCounter.DROPPED_WRONG_QPN); // cm_dreq_handler: local_qpn != the DREQ's remote QPN
                return;
            }
            if (id.state == CmState.DREQ_RCVD) {
                count(CmCounter.DUP_DREQ);
                return;
            }
            id.dreqTid = r.mad().tid();
            switch (id.state) {
                case TIMEWAIT -> {
                    sendDrep(id); // a duplicate: our DREP was lost
                    return;
                }
                case DREQ_SENT -> {
                    sendDrep(id); // both sides disconnect at once: answer, keep waiting for ours
                    return;
                }
                case ESTABLISHED, REP_SENT -> {
                    cancelOutstanding(id);
                    id.state = CmState.DREQ_RCVD;
                    count(CmCounter.DREQ_RCVD);
                }
                default -> {
                    count(CmCounter.DROPPED_WRONG_STATE);
                    return;
                }
            }
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null));
    }

    /** {@code cm_mra_handler}: the peer needs time to answer our REQ or REP; wait for it longer. */
    private void onMra(CmMra mra) {
        synchronized (lock) {
            CmaId id = byCommId.get(mra.remoteCommId());
            boolean forReq = mra.messageMraed() == CmMra.MSG_REQ;
            if (id == null || id.destroyed || id.sidr || (!forReq && id.remoteCommId != mra.localCommId())
                    || mra.messageMraed() > CmMra.MSG_OTHER) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            boolean matches = forReq ? id.state == CmState.REQ_SENT
                    : mra.messageMraed() == CmMra.MSG_REP && id.state == CmState.REP_SENT;
            if (!matches) {
                count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            if (id.mraRcvd) {
                count(CmCounter.DUP_MRA);
                return;
            }
            // the service timeout plus the packet life time (cm_id_priv->av.timeout = life time + 1)
            int timeoutMs = CmTimeout.toMs(mra.serviceTimeout())
                    + (int) cmTimeoutMs((id.ib ? id.packetLife : IBOE_PACKET_LIFETIME) + 1);
            MadSend s = id.outstanding;
            MadAgent a = agentOrNull(id);
            if (s == null || a == null || !a.modify(s, timeoutMs)) {
                count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            id.mraRcvd = true;
            count(CmCounter.MRA_RCVD);
        }
    }

    /** An MRA for the REQ this id received ({@code cm_format_mra} with the id's service timeout). */
    private void sendMra(CmaId id, int msg) {
        try {
            CmMra mra = new CmMra().localCommId(id.localCommId).remoteCommId(id.remoteCommId).messageMraed(msg)
                    .serviceTimeout(MRA_SERVICE_TIMEOUT);
            send(id, agent(id), mra.encode(id.tid), id.dgid, 0, 0);
            count(CmCounter.MRA_SENT);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    /** {@code cm_sidr_req_handler} and {@code cma_ib_req_handler} for a UD port space. */
    private void onSidrReq(IbDevice dev, int port, MadAgent agent, MadRecv r, SidrReq req) {
        Gid from = r.sgid();
        // InfiniBand: no GRH inside the subnet; the sender is its SLID (and its GID the CMA header's source)
        boolean lidRouted = from == null && dev.linkLayer(port) == LinkLayer.INFINIBAND;
        CmaId listener;
        CmaId conn;
        synchronized (lock) {
            if (from == null && !lidRouted) {
                count(CmCounter.DROPPED_NO_GRH);
                return;
            }
            for (CmaId c : ids) {
                if (c.sidr && c.state == CmState.REQ_RCVD && c.remoteCommId == req.requestId()
                        && (lidRouted ? c.ib && c.madDlid == r.slid() : from.equals(c.dgid))) {
                    count(CmCounter.DUP_SIDR_REQ); // cm_insert_remote_sidr: being answered
                    return;
                }
            }
            long tid = r.mad().tid();
            if (!hasListener(req.serviceId(), true)) {
                count(CmCounter.SIDR_NO_LISTENER); // cm_reject_sidr_req(IB_SIDR_UNSUPPORTED)
                sendSidrRepTo(agent, r, tid, req.requestId(), req.serviceId(), SidrRep.UNSUPPORTED);
                return;
            }
            CmaHeader hdr;
            try {
                hdr = CmaHeader.decode(req.privateData());
            } catch (IllegalArgumentException e) {
                count(CmCounter.SIDR_BAD_CMA_HEADER); // cma's handler fails: the cm_id is destroyed -> IB_SIDR_REJECT
                sendSidrRepTo(agent, r, tid, req.requestId(), req.serviceId(), SidrRep.REJECT);
                return;
            }
            CmaRoute.Endpoint here = CmaRoute.find(List.of(dev), hdr.dstAddr());
            listener = here == null ? null : findListener(req.serviceId(), hdr.dstAddr(), dev, here);
            if (listener == null || !listener.sidr) {
                count(CmCounter.SIDR_NO_LISTENER);
                sendSidrRepTo(agent, r, tid, req.requestId(), req.serviceId(), SidrRep.REJECT);
                return;
            }
            conn = new CmaId(this, listener.handler, listener.ps, listener);
            conn.sidr = true;
            conn.context = listener.context;
            at(conn, here);
            conn.local = new InetSocketAddress(hdr.dstAddr(), listener.local.getPort());
            conn.remote = new InetSocketAddress(hdr.srcAddr(), hdr.port());
            conn.dgid = lidRouted ? Gid.of(hdr.srcAddr()) : from;
            if (conn.ib) {
                conn.madDlid = r.slid();
                conn.madSl = r.sl();
                conn.dlid = r.slid();
                conn.sl = r.sl();
            }
            conn.tid = tid;
            conn.remoteCommId = req.requestId();
            conn.serviceId = req.serviceId();
            conn.state = CmState.REQ_RCVD;
            ids.add(conn);
            count(CmCounter.SIDR_REQ_RCVD);
        }
        RdmaConnParam p = new RdmaConnParam().privateData(CmaHeader.userData(req.privateData()));
        dispatch(conn, new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, conn, listener, 0, p));
    }

    private void sendSidrRep(CmaId id, int status, int qpn, int qkey, byte[] privateData) {
        SidrRep rep = new SidrRep().requestId(id.remoteCommId).status(status).qpn(qpn).qkey(qkey)
                .serviceId(id.serviceId).privateData(privateData);
        try {
            send(id, agent(id), rep.encode(id.tid), id.dgid, 0, 0);
            count(CmCounter.SIDR_REP_SENT);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    private void sendSidrRepTo(MadAgent agent, MadRecv r, long tid, int requestId, long serviceId, int status) {
        SidrRep rep = new SidrRep().requestId(requestId).status(status).serviceId(serviceId);
        try {
            agent.send(new MadSend(rep.encode(tid)).ah(agent.ahAttrFromWc(r)).remoteQpn(r.srcQp()));
            count(CmCounter.SIDR_REP_SENT);
        } catch (RuntimeException e) {
            count(CmCounter.SEND_FAILED);
        }
    }

    /** {@code cma_sidr_rep_handler}: ESTABLISHED with ud.qp_num, ud.qkey and ud.ah_attr, or UNREACHABLE. */
    private void onSidrRep(SidrRep rep) {
        CmaId id;
        RdmaCmEvent ev;
        synchronized (lock) {
            id = byCommId.get(rep.requestId());
            if (id == null || id.destroyed || !id.sidr || id.state != CmState.REQ_SENT) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            cancelOutstanding(id);
            count(CmCounter.SIDR_REP_RCVD);
            if (rep.status() != SidrRep.SUCCESS) {
                id.state = CmState.ERROR;
                forget(id);
                ev = new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, rep.status(),
                        new RdmaConnParam().privateData(rep.privateData()));
            } else if (rep.qkey() != RDMA_UDP_QKEY) {
                // cma_set_qkey: the UDP port space uses RDMA_UDP_QKEY only
                id.state = CmState.ERROR;
                forget(id);
                ev = new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, -Errno.EINVAL.value(), null);
            } else {
                id.remoteQpn = rep.qpn();
                id.state = CmState.ESTABLISHED;
                forget(id);
                ev = new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0, new RdmaConnParam()
                        .privateData(rep.privateData()).qpNum(rep.qpn()).qkey(rep.qkey())
                        .ahAttr(qpAv(id)));
            }
        }
        dispatch(id, ev);
    }

    private void onDrep(CmDrep drep) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(drep.remoteCommId());
            if (id == null || id.destroyed || id.state != CmState.DREQ_SENT) {
                count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            cancelOutstanding(id);
            enterTimewait(id);
            count(CmCounter.DREP_RCVD);
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null));
    }

    // ------------------------------------------------------------------ events

    /**
     * Delivers {@code ev} on the CM thread; a non-zero answer destroys the id (for a request: rejects it).
     * The future is done once the handler has returned (device removal waits for it).
     */
    private java.util.concurrent.Future<?> dispatch(CmaId id, RdmaCmEvent ev) {
        try {
            return thread.submit(() -> run(id, ev));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
    }

    /** Computes the event under the lock on the CM thread (null: nothing to deliver), then delivers it. */
    private void deliver(CmaId id, java.util.function.Supplier<RdmaCmEvent> under) {
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
                    id.mraPending = true;
                }
            }
        }
    }

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

    /** Entries of the comm ID tables (connections being set up, connected, or time-waiting). */
    int connTableSize() {
        synchronized (lock) {
            return byCommId.size() + byRemoteId.size();
        }
    }

    private void count(CmCounter what) {
        counters.count(what);
    }

    /** The CM's counters (sent and received messages, drops by reason), for tests and diagnostics. */
    Map<CmCounter, Long> counters() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        core.unregisterClient(this);
        thread.shutdown();
        if (Thread.currentThread() == cmThread) {
            return; // closed by a handler: the thread ends once it has run what is queued
        }
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
    }

    /** How long {@link #close} waits for the queued events, and then for the "rdma-cm" thread to end. */
    private static final long CLOSE_WAIT_MS = 5000;
}
