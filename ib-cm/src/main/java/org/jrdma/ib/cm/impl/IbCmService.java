package org.jrdma.ib.cm.impl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmEventType;
import org.jrdma.ib.cm.ib.IbCmHandler;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmState;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmTimeout;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
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
 * The IB CM ({@code cm.c}) on QP1: the id table by local comm ID, the table of passive connections by
 * remote comm ID, the listen table by service ID and mask, and the timewait timer. The messages are
 * formatted and sent by {@link CmSend} and handled by {@link CmRecv}. One lock guards every id and table;
 * events are delivered on one thread ("ib-cm"), in order, outside the lock, so a handler may call back in.
 * Retransmission of REQ, REP, DREQ and SIDR_REQ is the MAD layer's (a send with a timeout and retries),
 * cancelled when the answer arrives, as {@code cm.c} does.
 */
public final class IbCmService implements IbCm, IbClient, AutoCloseable {
    static final System.Logger LOG = System.getLogger("org.jrdma.ib.cm");
    /** rxe's {@code local_ca_ack_delay}, what Linux puts in REP's target ACK delay over rxe. */
    static final int TARGET_ACK_DELAY = 15;
    /** {@code CMA_MAX_CM_RETRIES}: how often REQ, REP, DREQ and SIDR_REQ are retried by default. */
    static final int MAX_CM_RETRIES = 15;
    /** Time an id stays in TIMEWAIT (answering duplicate DREQs) before TIMEWAIT_EXIT. */
    static final long TIMEWAIT_MS = Long.getLong("jrdma.cm.timewaitMs", 500);
    /**
     * Retransmission timeout of REQ, REP and DREQ: {@code cm_convert_to_ms(response timeout 20) + 2 *
     * cm_convert_to_ms(packet life 18)}, what rdma_cm's REQs ask for.
     */
    static final int MAD_TIMEOUT_MS = Integer.getInteger("jrdma.cm.madTimeoutMs",
            CmTimeout.toMs(20) + 2 * CmTimeout.toMs(18));

    final Object lock = new Object();
    private final IbCore core;
    private final MadService mad;
    private final CmThread thread = new CmThread("ib-cm");
    /** Per device: the CM agent of each port (index = port). */
    private final Map<IbDevice, MadAgent[]> agents = new ConcurrentHashMap<>();
    final Map<Integer, CmId> byCommId = new HashMap<>();
    /** Passive connections by (remote comm ID, remote CA GUID), for duplicate REQs ({@code cm_insert_remote_id}). */
    final Map<List<Long>, CmId> byRemoteId = new HashMap<>();
    final List<CmId> listeners = new ArrayList<>();
    /** Every id not destroyed (and destroyed ones time-waiting). */
    final List<CmId> ids = new ArrayList<>();
    final CmCounter.Counters counters = new CmCounter.Counters();
    final CmSend send = new CmSend(this);
    /** The agents' receive handler; the fuzz test feeds it MADs directly. */
    final CmRecv recv = new CmRecv(this);
    private volatile boolean closed;
    /** Retransmission timeout and retries of REQ, REP, DREQ and SIDR_REQ (tests shorten them). */
    volatile int madTimeoutMs = MAD_TIMEOUT_MS;
    volatile int madRetries = MAX_CM_RETRIES;

    public IbCmService(IbCore core, MadService mad) {
        this.core = core;
        this.mad = mad;
        core.registerClient(this);
    }

    // ------------------------------------------------------------------ devices

    @Override
    public String name() {
        return "ib_cm";
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
                            public void recv(MadAgent agent, MadRecv r) {
                                recv.receive(device, port, agent, r);
                            }

                            @Override
                            public void sendDone(MadAgent agent, MadSend s, WcStatus status) {
                                recv.sent(s, status);
                            }
                        });
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "ib_cm: no CM on " + device.name() + "/" + p + ": " + e);
            }
        }
        agents.put(device, a);
    }

    /**
     * {@code cm_remove_one}: the ids on the device stop where they are (IDLE, out of every table, listeners
     * too); nothing more is sent for them and no event comes. Their consumers hear of it from ib-core.
     */
    @Override
    public void remove(IbDevice device, Object clientData) {
        synchronized (lock) {
            for (CmId id : new ArrayList<>(ids)) {
                if (id.device == device) {
                    id.outstanding = null;
                    id.state = IbCmState.IDLE;
                    forget(id);
                    listeners.remove(id);
                    ids.remove(id);
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
    }

    // ------------------------------------------------------------------ ids

    @Override
    public IbCmId createId(IbDevice device, IbCmHandler handler, Object context) {
        if (device == null || handler == null) {
            throw new VerbsException(Errno.EINVAL, "ib_create_cm_id: device and handler are required");
        }
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "ib_create_cm_id: the IB CM is stopped");
        }
        CmId id = new CmId(this, device, handler, context);
        synchronized (lock) {
            ids.add(id);
        }
        return id;
    }

    /** {@code ib_cm_listen}: EBUSY if another id of the device listens on the same service ID and mask. */
    void listen(CmId id, long serviceId, long serviceMask) {
        long mask = serviceMask == 0 ? ~0L : serviceMask;
        synchronized (lock) {
            require(id, "ib_cm_listen", IbCmState.IDLE);
            for (CmId l : listeners) {
                if (l.device == id.device && l.serviceMask == mask && l.serviceId == (serviceId & mask)) {
                    throw new VerbsException(Errno.EBUSY, "ib_cm_listen: service ID " + Long.toHexString(serviceId)
                            + " is listened on");
                }
            }
            id.serviceId = serviceId & mask;
            id.serviceMask = mask;
            id.state = IbCmState.LISTEN;
            listeners.add(id);
        }
    }

    /** {@code cm_find_listen}: the id of {@code device} listening on {@code serviceId}, or null. */
    CmId findListener(IbDevice device, long serviceId) {
        for (CmId l : listeners) {
            if (l.device == device && (serviceId & l.serviceMask) == l.serviceId) {
                return l;
            }
        }
        return null;
    }

    /** EINVAL unless the id is alive and in one of {@code legal}. */
    static void require(CmId id, String call, IbCmState... legal) {
        if (!id.destroyed) {
            for (IbCmState s : legal) {
                if (id.state == s) {
                    return;
                }
            }
        }
        throw new VerbsException(Errno.EINVAL, call + ": not in state " + (id.destroyed ? "destroyed" : id.state));
    }

    /** {@code cm_destroy_id}: what the state needs sent, then the id leaves the tables (time-waiting ones later). */
    void destroy(CmId id) {
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
            try {
                switch (id.state) {
                    case REQ_SENT, MRA_REQ_RCVD -> send.rejLocked(id, IbCmRejReason.TIMEOUT, null, null);
                    case REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT, REP_SENT, MRA_REP_RCVD ->
                            send.rejLocked(id, IbCmRejReason.CONSUMER_DEFINED, null, null);
                    case ESTABLISHED -> send.dreqLocked(id, null);
                    case DREQ_RCVD -> send.drepLocked(id, null);
                    case SIDR_REQ_RCVD -> send.sidrRepLocked(id, SidrRep.REJECT, 0, 0, null);
                    default -> {
                    }
                }
            } catch (RuntimeException e) {
                count(CmCounter.SEND_FAILED); // the device is going away
            }
            cancelOutstanding(id);
            id.destroyed = true;
            listeners.remove(id);
            if (id.state != IbCmState.TIMEWAIT) {
                ids.remove(id);
                forget(id);
            } // else: the comm IDs stay known (answering duplicates) until the time wait ends
        }
    }

    /** Takes the id out of the comm ID tables (not while it time-waits: the timer does then). */
    void forget(CmId id) {
        if (id.state == IbCmState.TIMEWAIT) {
            return;
        }
        if (id.localCommId != 0) {
            byCommId.remove(id.localCommId, id);
        }
        byRemoteId.remove(List.of((long) id.remoteCommId, id.remoteCaGuid), id);
    }

    /** TIMEWAIT: duplicate DREQs are answered until the timer ends it with TIMEWAIT_EXIT. */
    void enterTimewait(CmId id) {
        id.state = IbCmState.TIMEWAIT;
        try {
            thread.schedule(() -> timewaitExit(id), TIMEWAIT_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopped
        }
    }

    private void timewaitExit(CmId id) {
        synchronized (lock) {
            byCommId.remove(id.localCommId, id);
            byRemoteId.remove(List.of((long) id.remoteCommId, id.remoteCaGuid), id);
            if (id.destroyed) {
                ids.remove(id);
                return;
            }
            if (id.state != IbCmState.TIMEWAIT) {
                return;
            }
            id.state = IbCmState.IDLE;
        }
        run(id, new IbCmEvent(IbCmEventType.TIMEWAIT_EXIT));
    }

    int newCommId() {
        int c;
        do {
            c = ThreadLocalRandom.current().nextInt();
        } while (c == 0 || byCommId.containsKey(c));
        return c;
    }

    // ------------------------------------------------------------------ agents

    MadAgent agentOrNull(IbDevice device, int port) {
        MadAgent[] a = device == null ? null : agents.get(device);
        return a == null || port <= 0 || port >= a.length ? null : a[port];
    }

    MadAgent agent(IbDevice device, int port) {
        MadAgent a = agentOrNull(device, port);
        if (a == null) {
            throw new VerbsException(Errno.ENODEV, "ib_cm: no CM agent on "
                    + (device == null ? "(no device)" : device.name() + "/" + port));
        }
        return a;
    }

    void cancelOutstanding(CmId id) {
        MadSend s = id.outstanding;
        id.outstanding = null;
        MadAgent a = agentOrNull(id.device, id.port());
        if (s != null && a != null) {
            a.cancel(s);
        }
    }

    // ------------------------------------------------------------------ QP attributes

    /** {@code ib_cm_init_qp_attr}: INIT, RTR or RTS attributes of the connection's QP. */
    QpAttr initQpAttr(CmId id, QpState state) {
        synchronized (lock) {
            switch (state) {
                case INIT -> {
                    require(id, "ib_cm_init_qp_attr(INIT)", IbCmState.IDLE, IbCmState.REQ_SENT, IbCmState.MRA_REQ_RCVD,
                            IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT, IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT,
                            IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD, IbCmState.ESTABLISHED);
                    int access = Access.REMOTE_WRITE
                            | (id.responderResources > 0 ? Access.REMOTE_READ | Access.REMOTE_ATOMIC : 0);
                    return new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port()).accessFlags(access);
                }
                case RTR -> {
                    require(id, "ib_cm_init_qp_attr(RTR)", IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT,
                            IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT, IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD,
                            IbCmState.ESTABLISHED);
                    Mtu mtu = Mtu.ofCode(Math.min(id.pathMtu, id.device.queryPort(id.port()).activeMtu().code()));
                    return new QpAttr().state(QpState.RTR).av(id.path.ahAttr()).pathMtu(mtu).destQpNum(id.remoteQpn)
                            .rqPsn(id.rqPsn).maxDestRdAtomic(Math.max(1, id.responderResources)).minRnrTimer(12);
                }
                case RTS -> {
                    require(id, "ib_cm_init_qp_attr(RTS)", IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT,
                            IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT, IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD,
                            IbCmState.ESTABLISHED);
                    return new QpAttr().state(QpState.RTS).sqPsn(id.sqPsn).timeout(id.ackTimeout)
                            .retryCnt(id.retryCount).rnrRetry(id.rnrRetryCount)
                            .maxRdAtomic(Math.max(1, id.initiatorDepth));
                }
                default -> throw new VerbsException(Errno.EINVAL, "ib_cm_init_qp_attr: no attributes for " + state);
            }
        }
    }

    // ------------------------------------------------------------------ events

    /** Queues {@code ev} for the id's handler on the CM thread. */
    void deliver(CmId id, IbCmEvent ev) {
        try {
            thread.execute(() -> run(id, ev));
        } catch (RejectedExecutionException e) {
            // stopped
        }
    }

    /** Calls the handler (not for a destroyed id); a non-zero answer destroys the id. */
    private void run(CmId id, IbCmEvent ev) {
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
        }
        if (CmThread.answer("ib_cm", ev, () -> id.handler.handle(id, ev)) != 0) {
            destroy(id);
        }
    }

    void count(CmCounter c) {
        counters.count(c);
    }

    /** Waits (bounded) until the events queued for the handlers so far have been delivered (tests settle with it). */
    void drainEvents() {
        thread.drain();
    }

    /** Events and timers (TIMEWAIT exits) queued on the CM's thread, for leak checks. */
    int queuedTasks() {
        return thread.getQueue().size();
    }

    /** The IB CM's counters (sent and received messages, drops by reason), for tests and diagnostics. */
    Map<CmCounter, Long> counters() {
        return counters.snapshot();
    }

    /** Entries of the comm ID tables (connections being set up, connected, or time-waiting). */
    int connTableSize() {
        synchronized (lock) {
            return byCommId.size() + byRemoteId.size();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        core.unregisterClient(this);
        thread.stop();
    }
}
