package org.jrdma.hw.loopback;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.ib.core.AtomicCap;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PhysState;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.spi.DeviceRegistrar;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.PortImmutable;
import org.jrdma.ib.core.spi.QpContext;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.sw.rdmavt.RucLoopback;
import org.jrdma.sw.rdmavt.RvtCq;
import org.jrdma.sw.rdmavt.RvtDevice;
import org.jrdma.sw.rdmavt.RvtEngine;
import org.jrdma.sw.rdmavt.RvtPd;
import org.jrdma.sw.rdmavt.RvtQp;
import org.jrdma.sw.rdmavt.RvtSrq;

/**
 * An in-JVM InfiniBand HCA: IB link layer, ports on the {@link LoopbackFabric} switch, data moved
 * by direct copy between registered regions (no packets). Each device runs its QPs' send queues on
 * one engine thread, so posting never blocks and completions arrive on that thread.
 */
public final class LoopbackDevice extends RvtDevice {
    /** Limits, in the spirit of rxe_param.h. */
    static DeviceAttr defaultAttr(long guid) {
        return new DeviceAttr().fwVer("1.0.0").sysImageGuid(guid).maxMrSize(Integer.MAX_VALUE)
                .pageSizeCap(0xfffff000L).vendorId(0x6a7264).vendorPartId(1).hwVer(1).maxQp(0x10000)
                .maxQpWr(0x4000).maxSendSge(32).maxRecvSge(32).maxSgeRd(32).maxCq(0x4000).maxCqe(0x10000)
                .maxMr(0x10000).maxPd(0x8000).maxQpRdAtom(128).maxResRdAtom(0x10000).maxQpInitRdAtom(128)
                .atomicCap(AtomicCap.HCA).maxMw(0x8000).maxMcastGrp(8192).maxMcastQpAttach(56)
                .maxTotalMcastQpAttach(0x70000).maxAh(0x8000).maxSrq(0x4000).maxSrqWr(0x4000).maxSrqSge(27)
                .maxFastRegPageListLen(512).maxPkeys(1).localCaAckDelay(15).maxInlineData(512).numCompVectors(1);
    }

    private final LoopbackFabric fabric;
    private final String namePattern;
    private final int ports;
    final long nodeGuid;
    private final int[] lids;
    /** Per port (index 1..): what the SMA sets. Guarded by {@code this}. */
    private final int[] smLids;
    private final int[] lmcs;
    private final int[] smSls;
    private final int[] subnetTimeouts;
    private final int[] capMasks;
    private final PortState[] states;
    private final Gid[] gids;
    private final RvtEngine engine;
    /** The engine's worker thread, for {@link #close} to wait for its end; null until it starts. */
    /** The engine thread's executor: a RucLoopback owns scratch objects, so it is never shared between threads. */
    private final RucLoopback loop;
    /** Executors for posting threads that run a QP inline (one at a time each; allocation-free once warm). */
    private final java.util.concurrent.ConcurrentLinkedQueue<RucLoopback> inlineLoops =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile RegisteredDevice handle;
    private volatile boolean up;
    /**
     * Per port (index 1..): packets the port dropped as malformed, IBA's PortRcvErrors (sysfs
     * {@code counters/port_rcv_errors}): today a packet for QP0 not on VL15 or one on VL15 not for QP0.
     */
    private final java.util.concurrent.atomic.AtomicLongArray rcvErrors;

    /** Per port (index 1..): datagrams dropped for their Q_Key, {@code qkey_viol_cntr} (16 bits, saturating). */
    private final java.util.concurrent.atomic.AtomicIntegerArray qkeyViols;

    /** The name {@link #queryHwStats} gives {@link #rcvErrors}. */
    public static final String PORT_RCV_ERRORS = "port_rcv_errors";

    /** A QP with the engine's scheduling state. */
    static final class LoQp extends RvtQp {
        final AtomicBoolean scheduled = new AtomicBoolean();
        Runnable task;

        LoQp(RvtDevice dev, QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
            super(dev, ctx, qpn, pd, a, scq, rcq, srq);
        }
    }

    public LoopbackDevice(LoopbackFabric fabric, String namePattern, int ports, long nodeGuid) {
        super(defaultAttr(nodeGuid == 0 ? fabric.allocNodeGuid() : nodeGuid));
        this.fabric = fabric;
        this.namePattern = namePattern;
        this.ports = ports;
        this.nodeGuid = attr.sysImageGuid();
        this.lids = new int[ports + 1];
        this.gids = new Gid[ports + 1];
        this.smLids = new int[ports + 1];
        this.lmcs = new int[ports + 1];
        this.smSls = new int[ports + 1];
        this.subnetTimeouts = new int[ports + 1];
        this.capMasks = new int[ports + 1];
        this.states = new PortState[ports + 1];
        this.rcvErrors = new java.util.concurrent.atomic.AtomicLongArray(ports + 1);
        this.qkeyViols = new java.util.concurrent.atomic.AtomicIntegerArray(ports + 1);
        java.util.Arrays.fill(capMasks, DEFAULT_CAP_MASK);
        java.util.Arrays.fill(subnetTimeouts, 18);
        this.loop = new RucLoopback(fabric, attr.maxSendSge());
        this.engine = new RvtEngine("loopback-engine-" + Long.toHexString(this.nodeGuid), Thread::new);
    }

    /** Attaches the ports to the fabric and registers the device with ib-core. */
    public RegisteredDevice register(DeviceRegistrar registrar) {
        for (int p = 1; p <= ports; p++) {
            gids[p] = Gid.of(Gid.DEFAULT_SUBNET_PREFIX, nodeGuid + p);
            lids[p] = fabric.attach(this, p, gids[p]);
            states[p] = fabric.isManaged() ? PortState.INIT : PortState.ACTIVE;
        }
        up = true;
        try {
            handle = registrar.register(new DeviceRegistration(namePattern, "loopback", this)
                    .nodeGuid(nodeGuid).physPortCnt(ports));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        return handle;
    }

    public RegisteredDevice handle() {
        return handle;
    }

    boolean isUp() {
        return up;
    }

    /** How long {@link #close} waits for the engine to terminate, and then for its thread to end. */
    private static final long CLOSE_WAIT_MS = 5000;

    /**
     * Unregisters (clients get remove, leftovers flush and are destroyed), detaches from the fabric
     * and stops the engine thread, waiting (bounded) for it to end unless called on it.
     */
    public UnregisterReport close() {
        UnregisterReport report = null;
        RegisteredDevice h = handle;
        if (h != null) {
            report = h.unregister();
        }
        up = false;
        fabric.detach(this);
        engine.stop(CLOSE_WAIT_MS);
        return report;
    }

    // ---------------------------------------------------------------- ports

    /** {@code IB_PORT_CM_SUP | IB_PORT_CLIENT_REG_SUP}. */
    static final int DEFAULT_CAP_MASK = 0x02010000;

    @Override
    public synchronized PortAttr queryPort(int port) {
        return new PortAttr().state(up ? states[port] : PortState.DOWN)
                .physState(up ? PhysState.LINK_UP : PhysState.DISABLED).maxMtu(Mtu.MTU_4096).activeMtu(Mtu.MTU_4096)
                .gidTblLen(1).pkeyTblLen(1).lid(lids[port]).smLid(smLids[port]).lmc(lmcs[port]).smSl(smSls[port])
                .subnetTimeout(subnetTimeouts[port]).maxMsgSz(0x80000000L)
                .maxVlNum(1).activeWidth(2).activeSpeed(32).linkLayer(LinkLayer.INFINIBAND)
                .portCapFlags(capMasks[port]).qkeyViolCntr(qkeyViols.get(port));
    }

    /**
     * {@code modify_port}: capability bits, and what the SMA sets from SubnSet(PortInfo). A new LID moves
     * the port on the fabric; the events follow as an HCA raises them: LID_CHANGE, SM_CHANGE, PORT_ACTIVE
     * on ARMED to ACTIVE, PORT_ERR on leaving ACTIVE. Logical state moves as IBTA allows: DOWN (back to
     * INIT: the link retrains), INIT to ARMED, ARMED to ACTIVE; the same state again is no change.
     */
    @Override
    public void modifyPort(int port, org.jrdma.ib.core.PortModify m) {
        java.util.List<org.jrdma.ib.core.EventType> events = new java.util.ArrayList<>();
        synchronized (this) {
            if (!up) {
                throw new org.jrdma.ib.core.VerbsException(org.jrdma.ib.core.Errno.ENODEV, "modifyPort: device is down");
            }
            PortState to = m.state();
            PortState from = states[port];
            if (to != null && to != from && to != PortState.DOWN
                    && !(from == PortState.INIT && to == PortState.ARMED)
                    && !(from == PortState.ARMED && to == PortState.ACTIVE)) {
                throw new org.jrdma.ib.core.VerbsException(org.jrdma.ib.core.Errno.EINVAL,
                        "modifyPort: port state " + from + " -> " + to);
            }
            if (m.lid() >= 0 && m.lid() != lids[port]) {
                if (!fabric.relid(this, port, lids[port], m.lid())) {
                    throw new org.jrdma.ib.core.VerbsException(org.jrdma.ib.core.Errno.EINVAL,
                            "modifyPort: LID " + m.lid() + " belongs to another port");
                }
                lids[port] = m.lid();
                events.add(org.jrdma.ib.core.EventType.LID_CHANGE);
            }
            if (m.lmc() >= 0 && m.lmc() != lmcs[port]) {
                lmcs[port] = m.lmc();
                if (!events.contains(org.jrdma.ib.core.EventType.LID_CHANGE)) {
                    events.add(org.jrdma.ib.core.EventType.LID_CHANGE);
                }
            }
            if (m.smLid() >= 0 && m.smLid() != smLids[port]) {
                smLids[port] = m.smLid();
                events.add(org.jrdma.ib.core.EventType.SM_CHANGE);
            }
            if (m.smSl() >= 0) {
                smSls[port] = m.smSl();
            }
            if (m.subnetTimeout() >= 0) {
                subnetTimeouts[port] = m.subnetTimeout();
            }
            capMasks[port] = (capMasks[port] | m.setPortCapMask()) & ~m.clrPortCapMask();
            if (to != null && to != from) {
                states[port] = to == PortState.DOWN ? PortState.INIT : to;
                if (to == PortState.ACTIVE) {
                    events.add(org.jrdma.ib.core.EventType.PORT_ACTIVE);
                } else if (from == PortState.ACTIVE) {
                    events.add(org.jrdma.ib.core.EventType.PORT_ERR);
                }
            }
        }
        RegisteredDevice h = handle;
        if (h != null) {
            for (org.jrdma.ib.core.EventType e : events) {
                h.dispatchPortEvent(e, port);
            }
        }
    }

    /** A packet for {@code port} dropped as malformed (see {@link #rcvErrors}). */
    void rcvError(int port) {
        rcvErrors.incrementAndGet(port);
    }

    /** A datagram for a QP of {@code port} dropped for its Q_Key; the count stops at 0xffff as the PortInfo field. */
    void qkeyViolation(int port) {
        qkeyViols.getAndUpdate(port, v -> v < 0xffff ? v + 1 : v);
    }

    /** {@code rdma statistic show link DEV/PORT}: the port's receive error count. */
    @Override
    public java.util.Map<String, Long> queryHwStats(int port) {
        return java.util.Map.of(PORT_RCV_ERRORS, rcvErrors.get(port));
    }

    /** The port's link number on the fabric (see {@link LoopbackFabric}). */
    public int linkOf(int port) {
        return fabric.linkOf(this, port);
    }

    @Override
    public PortImmutable getPortImmutable(int port) {
        return new PortImmutable(LinkLayer.INFINIBAND, 1, 1, 256);
    }

    @Override
    public int queryPkey(int port, int index) {
        return 0xffff; // the default full-member P_Key
    }

    @Override
    public Gid queryGid(int port, int index) {
        return gids[port];
    }

    @Override
    protected int lid(int port) {
        return port >= 1 && port <= ports ? lids[port] : 0;
    }

    public synchronized int lidOf(int port) {
        return lids[port];
    }

    @Override
    protected int udMtu(RvtQp qp) {
        return Mtu.MTU_4096.bytes();
    }

    // ---------------------------------------------------------------- engine

    @Override
    protected RvtQp newQp(QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
        LoQp qp = new LoQp(this, ctx, qpn, pd, a, scq, rcq, srq);
        qp.task = () -> run(qp);
        return qp;
    }

    /**
     * New send work. Like rxe running its requester task in the caller's context, an idle QP runs
     * right here on the posting thread, up to {@link #INLINE_BUDGET} WQEs: no thread hand-off, so a
     * ULP that polls its CQ does not fight the engine thread for the CPU. Whatever is left, and every
     * timed wait (RNR, retry), goes to the engine thread: posting never waits.
     */
    @Override
    protected void sqPosted(RvtQp qp) {
        LoQp q = (LoQp) qp;
        long r = RucLoopback.PROGRESS;
        // not from inside a completion handler of this QP, and never waiting for the lock
        if (!q.scheduled.get() && !q.exec.isHeldByCurrentThread() && q.exec.tryLock()) {
            RucLoopback l = inlineLoops.poll();
            if (l == null) {
                l = new RucLoopback(fabric, attr.maxSendSge());
            }
            try {
                int budget = INLINE_BUDGET;
                do {
                    r = loop(l, q);
                } while (r == RucLoopback.PROGRESS && --budget > 0);
            } finally {
                q.exec.unlock();
                inlineLoops.offer(l);
            }
            if (r == RucLoopback.IDLE) {
                q.sqdCheck();
                if (q.peekSend() == null) {
                    return;
                }
                r = RucLoopback.PROGRESS; // posted meanwhile by another thread
            }
        }
        if (q.scheduled.compareAndSet(false, true)) {
            submit(q.task, r > 0 ? r : 0);
        }
    }

    /** WQEs an idle QP runs on the posting thread before the rest goes to the engine thread. */
    static final int INLINE_BUDGET = 32;

    private long loop(RucLoopback l, LoQp q) {
        try {
            return l.step(q);
        } catch (RuntimeException e) {
            q.fatal(e);
            return RucLoopback.IDLE;
        }
    }

    private void submit(Runnable task, long delayNanos) {
        try {
            if (delayNanos <= 0) {
                engine.execute(task);
            } else {
                engine.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the device is closing: its QPs are being flushed and destroyed
        }
    }

    /** Runs a QP's send queue: up to a budget of WQEs, then yields the thread to other QPs. */
    private void run(LoQp q) {
        long r;
        int budget = 64;
        q.exec.lock();
        try {
            do {
                r = loop(loop, q);
            } while (r == RucLoopback.PROGRESS && --budget > 0);
        } finally {
            q.exec.unlock();
        }
        if (r == RucLoopback.PROGRESS) {
            submit(q.task, 0);
            return;
        }
        if (r > 0) {
            submit(q.task, r);
            return;
        }
        q.scheduled.set(false);
        q.sqdCheck();
        // work posted after the last step but before the flag cleared
        if (q.peekSend() != null && q.scheduled.compareAndSet(false, true)) {
            submit(q.task, 0);
        }
    }
}
