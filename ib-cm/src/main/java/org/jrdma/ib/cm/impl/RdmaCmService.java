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
import java.util.concurrent.atomic.AtomicLong;

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
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRejReason;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmRtu;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
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

/**
 * The RDMA CM ({@code cma.c}) over the IB CM protocol ({@code cm.c}) on QP1, for RoCE ports. One lock
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

    static final int EPHEMERAL_LOW = 32768;
    static final int EPHEMERAL_HIGH = 60999;

    final Object lock = new Object();
    private final IbCore core;
    private final MadService mad;
    private final ScheduledThreadPoolExecutor thread;
    /** Per device: the CM agent of each port (index = port). */
    private final Map<IbDevice, MadAgent[]> agents = new ConcurrentHashMap<>();
    private final Map<Integer, CmaId> byCommId = new HashMap<>();
    /** Passive connections by (remote comm ID, remote CA GUID), for duplicate REQs ({@code cm_insert_remote_id}). */
    private final Map<List<Long>, CmaId> byRemoteId = new HashMap<>();
    /** Ports in use per port space. */
    private final Map<RdmaPortSpace, Map<Integer, List<CmaId>>> ports = new HashMap<>();
    private final List<CmaId> listeners = new ArrayList<>();
    private final List<CmaId> ids = new ArrayList<>();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public RdmaCmService(IbCore core, MadService mad) {
        this.core = core;
        this.mad = mad;
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "rdma-cm");
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        core.registerClient(this);
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
            done.add(deliverFuture(id, new RdmaCmEvent(RdmaCmEventType.DEVICE_REMOVAL, id, null, 0, null)));
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
        if (ps == RdmaPortSpace.UDP || ps == RdmaPortSpace.IPOIB) {
            throw new VerbsException(Errno.EOPNOTSUPP, "rdma_create_id: port space " + ps + " (UD, SIDR) is not supported yet");
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
        int port = addr.getPort() != 0 ? reservePort(id, addr.getPort()) : reserveEphemeral(id);
        id.local = new InetSocketAddress(ip, port);
    }

    private void at(CmaId id, CmaRoute.Endpoint ep) {
        id.device = ep.device();
        id.port = ep.port();
        id.sgidIndex = ep.gidIndex();
        id.sgid = ep.gid();
    }

    private int reservePort(CmaId id, int port) {
        Map<Integer, List<CmaId>> m = ports.computeIfAbsent(id.ps, k -> new HashMap<>());
        List<CmaId> holders = m.get(port);
        if (holders != null && !holders.isEmpty()) {
            throw new VerbsException(Errno.EADDRINUSE, "rdma_bind_addr: port " + port + " is in use");
        }
        m.computeIfAbsent(port, k -> new ArrayList<>()).add(id);
        id.boundPort = port;
        return port;
    }

    private int reserveEphemeral(CmaId id) {
        Map<Integer, List<CmaId>> m = ports.computeIfAbsent(id.ps, k -> new HashMap<>());
        int range = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
        int start = ThreadLocalRandom.current().nextInt(range);
        for (int i = 0; i < range; i++) {
            int p = EPHEMERAL_LOW + (start + i) % range;
            if (!m.containsKey(p) || m.get(p).isEmpty()) {
                m.computeIfAbsent(p, k -> new ArrayList<>()).add(id);
                id.boundPort = p;
                return p;
            }
        }
        throw new VerbsException(Errno.EADDRINUSE, "rdma_cm: no free port");
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
                        InetAddress s = CmaRoute.sourceFor(dst.getAddress());
                        CmaRoute.Endpoint ep = CmaRoute.find(core.devices(), s);
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
            if (attr.qpType() != QpType.RC) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the TCP port space takes RC QPs, not " + attr.qpType());
            }
            QueuePair qp = pd.createQp(attr);
            try {
                // cma_init_ib_qp: INIT with the P_Key index and remote READ/WRITE
                qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port)
                        .accessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
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
            CmReq req = new CmReq().localCommId(id.localCommId).serviceId(id.ps.serviceId(id.remote.getPort()))
                    .localCaGuid(id.device.nodeGuid()).localQkey(0).localQpn(id.qp.qpNum())
                    .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                    .remoteCmResponseTimeout(CM_RESPONSE_TIMEOUT).transportType(0).flowControl(param.flowControl() != 0)
                    .startingPsn(id.startingPsn).localCmResponseTimeout(CM_RESPONSE_TIMEOUT)
                    .retryCount(param.retryCount()).pkey(0xffff).pathMtu(mtu.code())
                    .rnrRetryCount(param.rnrRetryCount()).maxCmRetries(MAX_CM_RETRIES).srq(param.srq())
                    .primaryPath(new CmPath().localLid(0xffff).remoteLid(0xffff).localGid(id.sgid).remoteGid(id.dgid)
                            .flowLabel(flowLabel(id.local.getPort(), id.remote.getPort())).packetRate(0).hopLimit(64)
                            .localAckTimeout(ackTimeout()))
                    .privateData(new CmaHeader(id.local.getAddress(), id.local.getPort(), id.remote.getAddress())
                            .encode(user));
            id.state = CmState.REQ_SENT;
            id.outstanding = send(id, agent, req.encode(id.tid), id.dgid, MAD_TIMEOUT_MS, MAX_CM_RETRIES);
            byCommId.put(id.localCommId, id);
            count("req_sent");
        }
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
                    .av(new AhAttr().portNum(id.port).grh(id.dgid, id.sgidIndex)).pathMtu(mtu)
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
            id.outstanding = send(id, agent, rep.encode(id.tid), id.dgid, MAD_TIMEOUT_MS,
                    Math.min(MAX_CM_RETRIES, req.maxCmRetries()));
            id.lastReply = id.outstanding;
            count("rep_sent");
        }
    }

    void reject(CmaId id, byte[] privateData) {
        synchronized (lock) {
            require(id, CmState.Call.REJECT);
            byte[] pd = privateData == null ? new byte[0] : privateData;
            if (pd.length > CmRej.PRIVATE_DATA_SIZE) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: private data of " + pd.length + " bytes, at most "
                        + CmRej.PRIVATE_DATA_SIZE);
            }
            sendRej(id.device, id.port, id.dgid, id.sgidIndex, id.tid, id.localCommId, id.remoteCommId,
                    CmRejReason.CONSUMER_DEFINED, 0, pd);
            id.state = CmState.ERROR;
            forget(id);
        }
    }

    void disconnect(CmaId id) {
        synchronized (lock) {
            require(id, CmState.Call.DISCONNECT);
            toError(id.qp);
            switch (id.state) {
                case ESTABLISHED, REP_SENT -> {
                    cancelOutstanding(id);
                    MadAgent agent = agent(id);
                    id.dreqTid = cmTid(agent, id.localCommId);
                    CmDreq dreq = new CmDreq().localCommId(id.localCommId).remoteCommId(id.remoteCommId)
                            .remoteQpn(id.remoteQpn);
                    id.state = CmState.DREQ_SENT;
                    id.outstanding = send(id, agent, dreq.encode(id.dreqTid), id.dgid, MAD_TIMEOUT_MS, MAX_CM_RETRIES);
                    count("dreq_sent");
                }
                case DREQ_RCVD -> {
                    sendDrep(id);
                    enterTimewait(id);
                }
                case REQ_SENT -> {
                    // cancel the connect (ib_send_cm_rej with TIMEOUT... cm.c sends REJ for a REQ in flight)
                    cancelOutstanding(id);
                    sendRej(id.device, id.port, id.dgid, id.sgidIndex, id.tid, id.localCommId, 0,
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
            switch (id.state) {
                case ESTABLISHED, REP_SENT, DREQ_RCVD, REQ_SENT -> {
                    // destroying a connected id disconnects it (rdma_destroy_id -> cma_cancel_operation / ib_destroy_cm_id)
                    try {
                        disconnect(id);
                    } catch (RuntimeException e) {
                        // device gone
                    }
                }
                case REQ_RCVD -> sendRej(id.device, id.port, id.dgid, id.sgidIndex, id.tid, id.localCommId,
                        id.remoteCommId, CmRejReason.CONSUMER_DEFINED, 0, new byte[0]);
                default -> {
                }
            }
            cancelOutstanding(id);
            id.destroyed = true;
            id.state = CmState.DESTROYING;
            listeners.remove(id);
            ids.remove(id);
            forget(id);
            if (id.boundPort != 0) {
                Map<Integer, List<CmaId>> m = ports.get(id.ps);
                List<CmaId> h = m == null ? null : m.get(id.boundPort);
                if (h != null) {
                    h.remove(id);
                    if (h.isEmpty()) {
                        m.remove(id.boundPort);
                    }
                }
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

    private MadAgent agent(CmaId id) {
        MadAgent[] a = id.device == null ? null : agents.get(id.device);
        if (a == null || id.port >= a.length || a[id.port] == null) {
            throw new VerbsException(Errno.ENODEV, "rdma_cm: no CM agent on " + (id.device == null ? "(no device)"
                    : id.device.name() + "/" + id.port));
        }
        return a[id.port];
    }

    private MadSend send(CmaId id, MadAgent agent, Mad m, Gid to, int timeoutMs, int retries) {
        MadSend s = new MadSend(m).ah(new AhAttr().portNum(agent.port()).grh(to, id == null ? 0 : id.sgidIndex))
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

    private void sendRej(IbDevice dev, int port, Gid to, int sgidIndex, long tid, int localCommId, int remoteCommId,
            CmRejReason reason, int messageRejected, byte[] privateData) {
        MadAgent[] a = dev == null ? null : agents.get(dev);
        if (a == null || port >= a.length || a[port] == null || to == null) {
            return;
        }
        CmRej rej = new CmRej().localCommId(localCommId).remoteCommId(remoteCommId).messageRejected(messageRejected)
                .reason(reason.code()).privateData(privateData);
        try {
            a[port].send(new MadSend(rej.encode(tid)).ah(new AhAttr().portNum(port).grh(to, sgidIndex)));
            count("rej_sent");
        } catch (RuntimeException e) {
            count("send_failed");
        }
    }

    private void sendDrep(CmaId id) {
        try {
            MadAgent agent = agent(id);
            CmDrep drep = new CmDrep().localCommId(id.localCommId).remoteCommId(id.remoteCommId);
            id.lastReply = send(id, agent, drep.encode(id.dreqTid), id.dgid, 0, 0);
            count("drep_sent");
        } catch (RuntimeException e) {
            count("send_failed");
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
            count("timeouts");
            switch (id.state) {
                case REQ_SENT, REP_SENT -> {
                    // cma: IB_CM_REQ_ERROR / IB_CM_REP_ERROR -> UNREACHABLE, -ETIMEDOUT
                    sendRej(id.device, id.port, id.dgid, id.sgidIndex, id.tid, id.localCommId, id.remoteCommId,
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
                count("dropped_bad_header");
                return;
            }
            count("rcvd");
            switch (m.attrId()) {
                case CmAttr.REQ -> onReq(dev, port, agent, r, CmReq.decode(m));
                case CmAttr.REP -> onRep(dev, port, r, CmRep.decode(m));
                case CmAttr.RTU -> onRtu(CmRtu.decode(m));
                case CmAttr.REJ -> onRej(CmRej.decode(m));
                case CmAttr.DREQ -> onDreq(dev, port, r, CmDreq.decode(m));
                case CmAttr.DREP -> onDrep(CmDrep.decode(m));
                case CmAttr.MRA -> count("mra_rcvd"); // the peer asks for time: our retries are long enough
                default -> count("dropped_unknown_attr");
            }
        } catch (RuntimeException e) {
            count("dropped_malformed");
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm: dropped a CM MAD: " + e);
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
                count("dup_req");
                if (dup.state == CmState.TIMEWAIT) {
                    sendRej(dev, port, from, dup.sgidIndex, r.mad().tid(), dup.localCommId, req.localCommId(),
                            CmRejReason.STALE_CONN, 0, new byte[0]);
                }
                return; // the REQ is being answered (cm_dup_req_handler)
            }
            if (req.transportType() != 0) {
                sendRej(dev, port, from, 0, r.mad().tid(), 0, req.localCommId(), CmRejReason.INVALID_TRANSPORT_TYPE, 0,
                        new byte[0]);
                return;
            }
            CmaHeader hdr;
            try {
                hdr = CmaHeader.decode(req.privateData());
            } catch (IllegalArgumentException e) {
                count("rej_bad_cma_header");
                sendRej(dev, port, from, 0, r.mad().tid(), 0, req.localCommId(), CmRejReason.INVALID_SERVICE_ID, 0,
                        new byte[0]);
                return;
            }
            CmaRoute.Endpoint here = CmaRoute.find(List.of(dev), hdr.dstAddr());
            listener = findListener(req.serviceId(), hdr.dstAddr(), dev, here);
            if (listener == null || here == null) {
                count("rej_no_listener");
                sendRej(dev, port, from, 0, r.mad().tid(), 0, req.localCommId(), CmRejReason.INVALID_SERVICE_ID, 0,
                        new byte[0]);
                return;
            }
            conn = new CmaId(this, listener.handler, listener.ps, listener);
            conn.context = listener.context;
            at(conn, here);
            conn.local = new InetSocketAddress(hdr.dstAddr(), listener.local.getPort());
            conn.remote = new InetSocketAddress(hdr.srcAddr(), hdr.port());
            conn.dgid = from;
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
            count("req_rcvd");
        }
        RdmaConnParam p = new RdmaConnParam().privateData(CmaHeader.userData(req.privateData()))
                .responderResources(req.responderResources()).initiatorDepth(req.initiatorDepth())
                .flowControl(req.flowControl() ? 1 : 0).retryCount(req.retryCount()).rnrRetryCount(req.rnrRetryCount())
                .srq(req.srq()).qpNum(req.localQpn());
        dispatch(conn, new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, conn, listener, 0, p));
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
            if (id == null || id.destroyed) {
                count("dropped_unknown_conn");
                return;
            }
            if (id.state == CmState.ESTABLISHED && id.lastReply != null) {
                resend(id, id.lastReply); // a duplicate REP: the RTU was lost
                return;
            }
            if (id.state != CmState.REQ_SENT) {
                count("dropped_wrong_state");
                return;
            }
            cancelOutstanding(id);
            id.remoteCommId = rep.localCommId();
            id.remoteCaGuid = rep.localCaGuid();
            id.remoteQpn = rep.localQpn();
            RdmaConnParam mine = id.param;
            try {
                Mtu mtu = id.device.queryPort(id.port).activeMtu();
                id.qp.modify(new QpAttr().state(QpState.RTR)
                        .av(new AhAttr().portNum(id.port).grh(id.dgid, id.sgidIndex)).pathMtu(mtu)
                        .destQpNum(rep.localQpn()).rqPsn(id.startingPsn)
                        .maxDestRdAtomic(Math.max(1, mine.responderResources())).minRnrTimer(12));
                id.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(rep.startingPsn()).timeout(ackTimeout())
                        .retryCnt(mine.retryCount()).rnrRetry(rep.rnrRetryCount())
                        .maxRdAtomic(Math.max(1, Math.min(mine.initiatorDepth(), rep.responderResources()))));
            } catch (RuntimeException e) {
                // cma: a QP that cannot be connected rejects the REP
                sendRej(id.device, id.port, id.dgid, id.sgidIndex, id.tid, id.localCommId, id.remoteCommId,
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
            count("established");
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
            count("dup_answered");
        } catch (RuntimeException e) {
            count("send_failed");
        }
    }

    private void onRtu(CmRtu rtu) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(rtu.remoteCommId());
            if (id == null || id.destroyed || id.state != CmState.REP_SENT || id.remoteCommId != rtu.localCommId()) {
                count("dropped_unknown_conn");
                return;
            }
            cancelOutstanding(id);
            id.state = CmState.ESTABLISHED;
            count("established");
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0, null));
    }

    private void onRej(CmRej rej) {
        CmaId id;
        RdmaCmEvent ev;
        synchronized (lock) {
            id = byCommId.get(rej.remoteCommId());
            if (id == null || id.destroyed) {
                count("dropped_unknown_conn");
                return;
            }
            CmState was = id.state;
            if (was != CmState.REQ_SENT && was != CmState.REP_SENT && was != CmState.ESTABLISHED) {
                count("dropped_wrong_state");
                return;
            }
            cancelOutstanding(id);
            toError(id.qp);
            id.state = CmState.ERROR;
            forget(id);
            count("rej_rcvd");
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

    private void onDreq(IbDevice dev, int port, MadRecv r, CmDreq dreq) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(dreq.remoteCommId());
            if (id == null || id.destroyed || id.remoteCommId != dreq.localCommId()) {
                count("dropped_unknown_conn");
                // cm.c answers a DREQ for an unknown connection with a DREP so the peer stops retrying
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
                    count("dreq_rcvd");
                }
                default -> {
                    count("dropped_wrong_state");
                    return;
                }
            }
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null));
    }

    private void onDrep(CmDrep drep) {
        CmaId id;
        synchronized (lock) {
            id = byCommId.get(drep.remoteCommId());
            if (id == null || id.destroyed || id.state != CmState.DREQ_SENT) {
                count("dropped_unknown_conn");
                return;
            }
            cancelOutstanding(id);
            enterTimewait(id);
            count("drep_rcvd");
        }
        dispatch(id, new RdmaCmEvent(RdmaCmEventType.DISCONNECTED, id, null, 0, null));
    }

    // ------------------------------------------------------------------ events

    /** Delivers {@code ev} on the CM thread; a non-zero answer destroys the id (for a request: rejects it). */
    private void dispatch(CmaId id, RdmaCmEvent ev) {
        deliverFuture(id, ev);
    }

    private java.util.concurrent.Future<?> deliverFuture(CmaId id, RdmaCmEvent ev) {
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
        }
    }

    private void count(String what) {
        counters.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    /** The CM's counters (sent and received messages, drops by reason), for tests and diagnostics. */
    public Map<String, Long> counters() {
        Map<String, Long> m = new java.util.TreeMap<>();
        counters.forEach((k, v) -> m.put(k, v.get()));
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
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
