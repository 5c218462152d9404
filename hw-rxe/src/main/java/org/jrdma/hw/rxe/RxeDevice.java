package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.AtomicCap;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PhysState;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.spi.DeviceRegistrar;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.PortImmutable;
import org.jrdma.ib.core.spi.QpContext;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.sw.rdmavt.RvtCq;
import org.jrdma.sw.rdmavt.RvtDevice;
import org.jrdma.sw.rdmavt.RvtEngine;
import org.jrdma.sw.rdmavt.RvtPd;
import org.jrdma.sw.rdmavt.RvtQp;
import org.jrdma.sw.rdmavt.RvtSrq;

import io.netty.buffer.ByteBuf;

/**
 * Soft-RoCE ({@code rxe.c}, {@code rxe_recv.c}): one Ethernet port whose GID table the caller gives, the
 * protocol engine ({@link RxeRequester}, {@link RxeResponder}, {@link RxeCompleter}) on one engine thread
 * per device, packets through an {@link RxeWire}.
 */
public final class RxeDevice extends RvtDevice {
    /** Verifies a received packet's ICRC; the default assumes IPv4 ID 0 (see NOTES.md). */
    @FunctionalInterface
    public interface IcrcCheck {
        boolean ok(Icrc icrc, RxePacket pkt, InetAddress src, InetAddress dst, int srcPort);

        IcrcCheck EXACT = (icrc, pkt, src, dst, srcPort) -> pkt.icrc() == RxeXmit.icrc(icrc, pkt.buf(),
                pkt.bthOffset(), pkt.length(), src, dst, srcPort);
        IcrcCheck NONE = (icrc, pkt, src, dst, srcPort) -> true;
    }

    static DeviceAttr defaultAttr(long guid) {
        return new DeviceAttr().fwVer("0.1.0").sysImageGuid(guid).maxMrSize(RxeParams.MAX_MR_SIZE)
                .pageSizeCap(RxeParams.PAGE_SIZE_CAP).vendorId(RxeParams.VENDOR_ID).vendorPartId(0).hwVer(0)
                .maxQp(RxeParams.MAX_QP).maxQpWr(RxeParams.MAX_QP_WR).maxSendSge(RxeParams.MAX_SGE)
                .maxRecvSge(RxeParams.MAX_SGE).maxSgeRd(RxeParams.MAX_SGE_RD).maxCq(RxeParams.MAX_CQ)
                .maxCqe((1 << RxeParams.MAX_LOG_CQE) - 1).maxMr(RxeParams.MAX_MR).maxPd(RxeParams.MAX_PD)
                .maxQpRdAtom(RxeParams.MAX_QP_RD_ATOM).maxResRdAtom(RxeParams.MAX_RES_RD_ATOM)
                .maxQpInitRdAtom(RxeParams.MAX_QP_INIT_RD_ATOM).atomicCap(AtomicCap.HCA).maxMw(RxeParams.MAX_MW)
                .maxMcastGrp(RxeParams.MAX_MCAST_GRP).maxMcastQpAttach(RxeParams.MAX_MCAST_QP_ATTACH)
                .maxTotalMcastQpAttach(RxeParams.MAX_TOT_MCAST_QP_ATTACH).maxAh(RxeParams.MAX_AH)
                .maxSrq(RxeParams.MAX_SRQ).maxSrqWr(RxeParams.MAX_SRQ_WR).maxSrqSge(RxeParams.MAX_SRQ_SGE)
                .maxFastRegPageListLen(RxeParams.MAX_FMR_PAGE_LIST_LEN).maxPkeys(RxeParams.MAX_PKEYS)
                .localCaAckDelay(RxeParams.LOCAL_CA_ACK_DELAY).maxInlineData(RxeParams.MAX_INLINE_DATA)
                .numCompVectors(1);
    }

    final String namePattern;
    final RxeWire wire;
    final List<Gid> gids;
    final InetAddress[] addrs;
    final Mtu activeMtu;
    final long nodeGuid;
    final RxeCounters counters = new RxeCounters();
    /** The receive path ({@code rxe_recv.c}). */
    private final RxeRecv recv = new RxeRecv(this);
    private final RvtEngine engine;
    /**
     * The roles' scratch state (decoded packet, resolved segments, a completion) is per thread: the engine,
     * the transport's receive thread and posting threads may each run a different QP of this device at once
     * (see {@link #kick}); a QP itself is only ever run by the holder of its {@code exec} lock.
     */
    private record Roles(RxeRequester requester, RxeResponder responder, RxeCompleter completer) {
        Roles(RxeDevice dev, RxeXmit xmit) {
            this(new RxeRequester(dev, xmit), new RxeResponder(dev, xmit), new RxeCompleter(dev));
        }
    }

    private final ThreadLocal<Roles> roles;
    private volatile RegisteredDevice handle;
    private volatile boolean up = true;
    /** The net device the port runs on ({@code rxe->ndev}), or null (InMemoryWire). */
    private volatile String netdev;

    /**
     * @param namePattern device name pattern, e.g. {@code "rxe%d"}
     * @param addresses the GID table of port 1 (IPv4 addresses become IPv4-mapped GIDs)
     * @param netdevMtu the MTU of the underlying netdev; the active MTU is the largest IB MTU within
     *        {@code netdevMtu - 80} ({@code rxe_set_mtu})
     * @param mac a 48-bit MAC-like id; the node GUID is its EUI-64
     */
    public RxeDevice(String namePattern, List<InetAddress> addresses, int netdevMtu, long mac, RxeWire wire) {
        super(defaultAttr(eui64(mac)), false); // RoCE: groups by MGID, the MLID is ignored
        this.namePattern = namePattern;
        this.wire = wire;
        this.gids = addresses.stream().map(Gid::of).toList();
        this.addrs = addresses.toArray(new InetAddress[0]);
        this.activeMtu = Mtu.fitting(Math.max(netdevMtu - org.jrdma.hw.rxe.wire.RxeWire.MAX_HDR_LENGTH, 256));
        this.nodeGuid = eui64(mac);
        this.roles = ThreadLocal.withInitial(() -> new Roles(this, new RxeXmit(this)));
        // a Netty FastThreadLocalThread: Netty 4.2 gives packet pool caches (and recycled buffer objects)
        // only to those unless told otherwise
        this.engine = new RvtEngine("rxe-engine-" + Long.toHexString(nodeGuid),
                io.netty.util.concurrent.FastThreadLocalThread::new);
        engine.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.MILLISECONDS);
    }

    /** {@code addrconf_addr_eui48}: MAC to EUI-64 (U/L bit flipped, ff:fe in the middle). */
    static long eui64(long mac) {
        long hi = (mac >>> 24) & 0xffffff;
        long lo = mac & 0xffffff;
        return ((hi ^ 0x020000L) << 40) | 0xfffeL << 24 | lo;
    }

    public RegisteredDevice register(DeviceRegistrar registrar) {
        handle = registrar.register(new DeviceRegistration(namePattern, "rxe", this).nodeGuid(nodeGuid).physPortCnt(1));
        return handle;
    }

    public RegisteredDevice handle() {
        return handle;
    }

    /** How long {@link #close} waits for the engine to terminate, and then for its thread to end. */
    private static final long CLOSE_WAIT_MS = 5000;

    /** Unregisters, stops the engine (waiting for its thread to end) and releases every queued packet. */
    public UnregisterReport close() {
        UnregisterReport report = null;
        RegisteredDevice h = handle;
        if (h != null) {
            report = h.unregister();
        }
        if (up) {
            up = false;
            counters.inc(RxeCounter.LINK_DOWNED);
        }
        engine.stop(CLOSE_WAIT_MS);
        for (RvtQp q : qps()) {
            ((RxeQp) q).releaseQueued();
        }
        return report;
    }

    public RxeCounters counters() {
        return counters;
    }

    /** {@code get_hw_stats}: rxe's port counters by their rxe names, in rxe's order, then jrdma's two. */
    @Override
    public java.util.Map<String, Long> queryHwStats(int portNum) {
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        for (RxeCounter c : RxeCounter.values()) {
            m.put(c.label(), counters.get(c));
        }
        return m;
    }

    public void icrcCheck(IcrcCheck check) {
        recv.icrcCheck = check;
    }

    /**
     * The port follows the netdev ({@code rxe_port_up/down}): sets the port state and dispatches
     * PORT_ACTIVE or PORT_ERR on a change.
     */
    public void linkState(boolean linkUp) {
        if (linkUp == up) {
            return;
        }
        up = linkUp;
        if (!linkUp) {
            counters.inc(RxeCounter.LINK_DOWNED);
        }
        RegisteredDevice h = handle;
        if (h != null) {
            h.dispatchPortEvent(linkUp ? org.jrdma.ib.core.EventType.PORT_ACTIVE : org.jrdma.ib.core.EventType.PORT_ERR, 1);
        }
    }

    /** Whether the port is up ({@link #linkState}); packets sent while it is down count as send_err. */
    boolean isUp() {
        return up;
    }

    public List<InetAddress> addresses() {
        return List.of(addrs);
    }

    /** Names the net device under the port ({@code rxe_net_add} keeps it in {@code rxe->ndev}); set before registering. */
    public void netdev(String name) {
        this.netdev = name;
    }

    /** {@code rxe_get_netdev} (the {@code get_netdev} op): what {@code rdma link} shows as {@code netdev}. */
    @Override
    public String getNetdev(int port) {
        return netdev;
    }

    // ---------------------------------------------------------------- port

    @Override
    public PortAttr queryPort(int port) {
        return new PortAttr().state(up ? PortState.ACTIVE : PortState.DOWN)
                .physState(up ? PhysState.LINK_UP : PhysState.DISABLED).maxMtu(Mtu.MTU_4096).activeMtu(activeMtu)
                .gidTblLen(gids.size()).pkeyTblLen(RxeParams.PORT_PKEY_TBL_LEN).lid(0).smLid(0).lmc(0)
                .maxMsgSz(RxeParams.PORT_MAX_MSG_SZ).maxVlNum(RxeParams.PORT_MAX_VL_NUM)
                .activeWidth(RxeParams.PORT_ACTIVE_WIDTH).activeSpeed(RxeParams.PORT_ACTIVE_SPEED)
                .linkLayer(LinkLayer.ETHERNET).portCapFlags(RxeParams.PORT_PORT_CAP_FLAGS)
                .badPkeyCntr(recv.badPkeyCntr.get()).qkeyViolCntr(recv.qkeyViolCntr.get());
    }

    @Override
    public PortImmutable getPortImmutable(int port) {
        return new PortImmutable(LinkLayer.ETHERNET, 1, gids.size(), 256);
    }

    @Override
    public int queryPkey(int port, int index) {
        return 0xffff;
    }

    @Override
    public Gid queryGid(int port, int index) {
        return index >= 0 && index < gids.size() ? gids.get(index) : Gid.ZERO;
    }

    @Override
    protected int udMtu(RvtQp qp) {
        return activeMtu.bytes();
    }

    int mtu(RxeQp qp) {
        return Math.min(qp.pathMtu().bytes(), activeMtu.bytes());
    }

    InetAddress sourceAddress(int sgidIndex) {
        return addrs[sgidIndex >= 0 && sgidIndex < addrs.length ? sgidIndex : 0];
    }

    boolean ownsAddress(InetAddress a) {
        for (InetAddress x : addrs) {
            if (x.equals(a)) {
                return true;
            }
        }
        return false;
    }

    /** {@code rxe_mcast_add}: the MGID as an IP address (IPv4-mapped to IPv4), joined on the wire. */
    @Override
    protected void mcastGroupAdded(Gid mgid) {
        wire.joinGroup(this, mgid.toInetAddress());
    }

    @Override
    protected void mcastGroupRemoved(Gid mgid) {
        wire.leaveGroup(this, mgid.toInetAddress());
    }

    // ---------------------------------------------------------------- engine

    @Override
    protected RvtQp newQp(QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
        return new RxeQp(this, ctx, qpn, pd, a, scq, rcq, srq);
    }

    @Override
    protected void sqPosted(RvtQp qp) {
        kick((RxeQp) qp);
    }

    @Override
    protected void rqPosted(RvtQp qp) {
    }

    @Override
    protected void stateChanged(RvtQp qp) {
        RxeQp q = (RxeQp) qp;
        q.exec.lock();
        try {
            q.syncState();
        } finally {
            q.exec.unlock();
        }
        schedule(q);
    }

    void schedule(RxeQp qp) {
        if (qp.scheduled.compareAndSet(false, true)) {
            try {
                engine.execute(qp.task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                qp.releaseQueued();
            }
        }
    }

    /**
     * Whether posting threads and the transport's receive thread run a QP's roles themselves when the
     * QP is free ({@code -Djrdma.rxe.inline=false}: always on the engine thread). Linux rxe does the same
     * (rxe_run_task inline from post_send and from the UDP receive softirq): every hand-off to another
     * thread costs a wakeup, which dominates an 8-byte round trip.
     */
    static final boolean INLINE = !"false".equals(System.getProperty("jrdma.rxe.inline"));

    /**
     * Runs the QP's roles on this thread if nobody runs them now, else leaves it to the engine. Never
     * blocks (tryLock), never nests into a QP this thread is already running (a completion handler that
     * posts again). Bounded: what is left goes to the engine.
     */
    void kick(RxeQp qp) {
        if (!INLINE) {
            schedule(qp);
        } else if (qp.exec.isHeldByCurrentThread()) {
            // posted from a completion or event handler this thread runs inside the QP's roles: the
            // requester runs after the responder and completer in the same pass (runLocked loops while
            // anything progresses), so it sends this WQE without a hand-off to the engine
        } else if (qp.exec.tryLock()) {
            boolean more;
            try {
                more = runCorked(qp);
            } finally {
                qp.exec.unlock();
            }
            qp.sqdCheck(); // a drain the modify to SQD saw running ends here
            if (more || !qp.reqPkts.isEmpty() || !qp.respPkts.isEmpty()) {
                schedule(qp); // left over, or queued by another thread while we held the lock
            }
        } else {
            schedule(qp);
        }
    }

    /** Runs the three roles of a QP until none makes progress (bounded; then yields). */
    void run(RxeQp qp) {
        qp.scheduled.set(false);
        boolean progress;
        qp.exec.lock();
        try {
            progress = runCorked(qp);
        } finally {
            qp.exec.unlock();
        }
        qp.sqdCheck(); // a drain the modify to SQD saw running ends here
        if (progress) {
            schedule(qp);
        }
    }

    /**
     * {@link #runLocked} with the wire corked: what the pass sends leaves together at its end (NettyWire: as
     * GSO datagrams), before {@code exec} is let go, so no other thread sends for this QP in between.
     */
    private boolean runCorked(RxeQp qp) {
        wire.cork();
        try {
            return runLocked(qp);
        } finally {
            wire.uncork();
        }
    }

    /** The roles with {@code exec} held; true if the budget ran out with work left. */
    private boolean runLocked(RxeQp qp) {
        boolean progress = false;
        try {
            qp.syncState();
            Roles r = roles.get();
            int budget = 64;
            do {
                progress = r.responder().run(qp);
                progress |= r.completer().run(qp);
                progress |= r.requester().run(qp);
            } while (progress && --budget > 0);
            if (qp.state() == QpState.ERR) {
                qp.engineFlush(); // a flush deferred to the engine (RvtQp.flushOrDefer)
            }
            if (qp.state() == QpState.ERR || qp.state() == QpState.RESET || qp.isDestroyed()) {
                qp.releaseQueued();
                progress = false;
            }
        } catch (RuntimeException e) {
            qp.fatal(e);
            qp.releaseQueued();
            progress = false;
        }
        return progress;
    }

    /** The retransmit and RNR timers ({@code retransmit_timer}, {@code rnr_nak_timer}). */
    private void tick() {
        long now = System.nanoTime();
        for (RvtQp q : qpArray()) {
            RxeQp qp = (RxeQp) q;
            boolean fire = false;
            if (qp.retransDeadline != 0 && now - qp.retransDeadline >= 0) {
                qp.retransDeadline = 0;
                qp.timeoutFired = true;
                fire = true;
            }
            if (qp.rnrDeadline != 0 && now - qp.rnrDeadline >= 0) {
                qp.rnrDeadline = 0;
                if (qp.waitRnr) {
                    qp.waitRnr = false;
                    qp.needRetry = true;
                }
                fire = true;
            }
            if (fire) {
                schedule(qp);
            }
        }
    }

    // ---------------------------------------------------------------- transmit: RxeXmit

    /**
     * An IPv4 address as an int, without the array {@code getAddress()} copies out per call (twice a packet on
     * the ICRC paths): {@code Inet4Address.hashCode()} is that int, and has been in every JDK.
     */
    public static int v4(InetAddress a) {
        return a.hashCode();
    }

    // ---------------------------------------------------------------- receive (rxe_recv.c)

    /**
     * {@code rxe_rcv}: checks a received UDP payload and queues it for the responder (requests) or the
     * completer (ACKs and responses) of its QP, or of every QP attached to the group it was sent to
     * ({@link RxeRecv}). Takes ownership of {@code udpPayload}. Never throws: bad packets are dropped and counted.
     */
    public void rcv(ByteBuf udpPayload, InetAddress src, InetAddress dst, int srcPort) {
        recv.rcv(udpPayload, src, dst, srcPort);
    }

    /** Packets whose receive checks threw (a bug; dropped, counted in rcvd_dropped too). */
    long rcvInternalErrors() {
        return recv.internalErrors.get();
    }
}
