package org.jrdma.ulp.ipoib.impl;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ulp.ipoib.CmConnection;
import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.jrdma.ulp.ipoib.IpoibReceiver;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.Neighbour;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * One IPoIB interface (Linux's {@code ipoib_dev_priv}; its transmit side is {@link TxPath}), in datagram mode
 * or, with {@link IpoibCm}, in connected mode.
 * Everything that changes its state runs on its own thread ("ipoib-ibN", its workqueue and NAPI in one): sends
 * queued by {@link #send}, CQ polling woken by the completion handler, SA answers, timers. The link comes up once
 * the broadcast group is joined; {@link #close} drops and counts what waits and frees every verbs resource.
 */
public final class IpoibNetdev implements IpoibInterface {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.ipoib");
    static final int ENCAP_MTU_MAX = UdQp.IB_MTU - Encap.LEN;

    private final IbClient client;
    private final QueueSizes sizes;
    private final IbDevice device;
    private final int port;
    private final String name;
    private final int ifindex;
    private final int pkey;
    private final Gid gid;
    private final SaClient sa;
    private final IbCm ibCm;
    private final CmOptions cmOptions;
    private final IfThread exec;
    private final LinkMtu link = new LinkMtu();
    private final Counters counters = new Counters();
    private final AtomicBoolean pollQueued = new AtomicBoolean();
    private final IfAddresses addresses = new IfAddresses();
    private final Paths paths = new Paths(this);
    private final Arp arp = new Arp(this);
    private final Ndisc ndisc = new Ndisc(this);
    private final Addrconf addrconf = new Addrconf(this);
    private final McastGroups mcast;
    private final RxPath rx = new RxPath(this);
    private final TxPath tx = new TxPath(this);
    private final HwAddr broadcast;
    private AutoCloseable events;
    private UdQp ud;
    private volatile HwAddr hwAddr;
    /** Connected mode's state; null in datagram mode. */
    private volatile IpoibCm cm;
    private volatile int qkey;
    private volatile OperState state = OperState.DOWN;
    /** IFF_UP: changed only on the interface's thread. */
    private volatile boolean adminUp = true;
    private volatile boolean closing;
    private volatile IpoibReceiver receiver;
    /** The broadcast join has been started (on the interface's thread only). */
    private boolean started;

    IpoibNetdev(IbClient client, SaClient sa, IbCm ibCm, CmOptions cmOptions, IbDevice device, int port,
            String name, int ifindex, QueueSizes sizes) {
        this.client = client;
        this.ibCm = ibCm;
        this.cmOptions = cmOptions;
        this.sizes = sizes;
        this.sa = sa;
        this.device = device;
        this.port = port;
        this.name = name;
        this.ifindex = ifindex;
        this.pkey = device.queryPkey(port, 0) | 0x8000;
        this.gid = device.queryGid(port, 0);
        this.broadcast = HwAddr.broadcast(pkey);
        this.mcast = new McastGroups(this, broadcast.gid());
        this.hwAddr = new HwAddr(0, 0, gid);
        this.exec = new IfThread(name, () -> closing);
    }

    /**
     * {@code ipoib_open}: the UD QP to RTS with Q_Key 0 (so the hardware address has its QPN from the start), then,
     * once the port is ACTIVE, the broadcast join.
     */
    void open() {
        events = device.registerEventHandler(ev -> {
            if (ev.portNum() == port && ev.type() == EventType.PORT_ACTIVE) {
                run(this::startIfActive);
            }
        });
        run(() -> {
            ud = new UdQp(device, client, port, 0, sizes, cq -> wake());
            ud.postRecvAll();
            hwAddr = new HwAddr(0, ud.qpn(), gid);
            wake(); // the first poll arms the CQ
            addrconf.open();
            if (cmOptions.mode() == IpoibMode.CONNECTED && ibCm != null) {
                applyMode(IpoibMode.CONNECTED);
            }
            startIfActive();
        });
    }

    /** After a port event ended the memberships: carrier off, paths gone, and the broadcast join again. */
    void restart() {
        carrierOff();
        started = false;
        startIfActive();
    }

    private void startIfActive() {
        if (adminUp && !started && device.queryPort(port).state() == PortState.ACTIVE) {
            started = true;
            mcast.joinBroadcast();
        }
    }

    /** The broadcast group's record is here: its Q_Key on the QP ({@code set_qkey}), the MTU from the group. */
    void broadcastJoined(MCMemberRecord rec) {
        qkey = rec.qkey;
        ud.qp.modify(new QpAttr().state(QpState.RTS).qkey(qkey));
        link.groupMtu(Math.min(Mtu.ofCode(rec.mtu).bytes(), device.queryPort(port).activeMtu().bytes()) - Encap.LEN);
    }

    void carrierOn() {
        addrconf.linkUp();
        state = OperState.UP;
        LOG.log(System.Logger.Level.INFO, name + ": link up, qpn 0x" + Integer.toHexString(ud.qpn()) + ", qkey 0x"
                + Integer.toHexString(qkey) + ", mtu " + link.mtu());
    }

    void carrierOff() {
        state = OperState.DOWN;
        paths.flush(Drop.TX_CARRIER);
        if (cm != null) {
            cm.flushActive(Drop.TX_CARRIER);
        }
    }

    private void wake() {
        if (pollQueued.compareAndSet(false, true)) {
            run(() -> {
                pollQueued.set(false);
                if (ud != null) {
                    ud.poll(rx);
                }
            });
        }
    }

    // ---- transmit (ipoib_start_xmit) ----

    @Override
    public void send(ByteBuffer ipPacket) {
        byte[] p = new byte[ipPacket.remaining()];
        ipPacket.get(p);
        // not through run(): a packet queued just before the teardown is counted, not lost silently
        if (!exec.execute(() -> {
            if (closing) {
                counters.drop(Drop.TX_REMOVED);
            } else {
                exec.guarded(() -> tx.xmit(p)); // in this task: queued again it could be lost to the teardown
            }
        })) {
            counters.drop(Drop.TX_REMOVED);
        }
    }

    boolean isLocal(InetAddress ip) {
        return addresses.isLocal(ip);
    }

    /** Runs {@code task} on the interface's thread even while it closes (the task checks {@link #closing}). */
    boolean runWhileClosing(Runnable task) {
        return exec.execute(task);
    }

    // ---- the interface's thread ----

    /** Runs {@code task} on the interface's thread; false once it is gone. */
    boolean run(Runnable task) {
        return exec.run(task);
    }

    Future<?> schedule(Runnable task, long ms) {
        return exec.schedule(task, ms);
    }

    Future<?> scheduleAtFixedRate(Runnable task, long periodMs) {
        return exec.scheduleAtFixedRate(task, periodMs);
    }

    /**
     * {@code ipoib_remove_one} for this port: link down, waiting packets dropped and counted ({@code tx_removed}),
     * groups left, QP, CQ, AHs, MRs and PD freed, the thread ended. Runs on the caller (ib-core's remove).
     */
    void close() {
        try {
            exec.call(() -> {
                if (!closing) {
                    teardown();
                }
            });
        } catch (IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, name + ": teardown did not finish: " + e);
        }
        exec.shutdown(); // sends queued meanwhile still run, and are counted as tx_removed
    }

    private void teardown() {
        state = OperState.NOTPRESENT;
        closing = true;
        if (events != null) {
            try {
                events.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.DEBUG, name + ": event handler: " + e);
            }
        }
        arp.table().flush(Drop.TX_REMOVED);
        ndisc.table().flush(Drop.TX_REMOVED);
        stopCm(Drop.TX_REMOVED);
        mcast.close(Drop.TX_REMOVED);
        paths.flush(Drop.TX_REMOVED);
        if (ud != null) {
            ud.destroy();
            ud = null;
        }
    }

    // ---- what the parts share ----

    Counters counters() {
        return counters;
    }

    IbClient client() {
        return client;
    }

    RxPath rxPath() {
        return rx;
    }

    TxPath txPath() {
        return tx;
    }

    IfAddresses ifAddresses() {
        return addresses;
    }

    LinkMtu linkMtu() {
        return link;
    }

    IpoibCm cm() {
        return cm;
    }

    int qkey() {
        return qkey;
    }

    Paths paths() {
        return paths;
    }

    McastGroups mcast() {
        return mcast;
    }

    HwAddr broadcastAddr() {
        return broadcast;
    }

    Arp arp() {
        return arp;
    }

    Ndisc ndisc() {
        return ndisc;
    }

    SaClient sa() {
        return sa;
    }

    IbDevice ibDevice() {
        return device;
    }

    Gid gid() {
        return gid;
    }

    UdQp ud() {
        return ud;
    }

    boolean closing() {
        return closing;
    }

    PathRecord pathRecord(Gid dgid) {
        return paths.record(dgid);
    }

    @Override
    public IpoibReceiver receiver() {
        return receiver;
    }

    // ---- IpoibInterface ----

    @Override
    public String name() {
        return name;
    }

    @Override
    public int ifindex() {
        return ifindex;
    }

    @Override
    public String device() {
        return device.name();
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public byte[] hwAddr() {
        return hwAddr.bytes();
    }

    HwAddr hw() {
        return hwAddr;
    }

    @Override
    public byte[] broadcast() {
        return broadcast.bytes();
    }

    @Override
    public int pkey() {
        return pkey;
    }

    @Override
    public int txQueueLen() {
        return sizes.txQueueLen();
    }

    @Override
    public int mtu() {
        return link.mtu();
    }

    @Override
    public IpoibMode mode() {
        return link.mode();
    }

    @Override
    public void setMode(IpoibMode mode) {
        if (mode == IpoibMode.CONNECTED && ibCm == null) {
            throw new UnsupportedOperationException("RTNETLINK answers: Operation not supported");
        }
        exec.call(() -> applyMode(mode));
    }

    /**
     * {@code ipoib_set_mode} on the interface's thread. Connected: the CM side started (listener, SRQ), the RC flag
     * in the hardware address, MTU 65520. Datagram: every connection closed and the CM side freed, the flag
     * cleared, the MTU clamped.
     */
    private void applyMode(IpoibMode mode) {
        if (closing || mode == link.mode()) {
            return;
        }
        if (mode == IpoibMode.CONNECTED) {
            if (adminUp) {
                cm = new IpoibCm(this, ibCm, cmOptions, sizes);
            }
            hwAddr = new HwAddr(HwAddr.FLAGS_RC, ud.qpn(), gid);
        } else {
            hwAddr = new HwAddr(0, ud.qpn(), gid);
            stopCm(Drop.TX_CM_FLUSH);
        }
        link.setMode(mode);
        if (state == OperState.UP) {
            arp.announce();
            ndisc.announce();
        }
        LOG.log(System.Logger.Level.INFO, name + ": mode " + mode.sysfs() + ", mtu " + link.mtu());
    }

    private void stopCm(Drop why) {
        if (cm != null) {
            cm.stop(why);
            cm = null;
        }
    }

    @Override
    public boolean isUp() {
        return adminUp;
    }

    @Override
    public void setUp(boolean up) {
        exec.call(() -> {
            if (closing || up == adminUp) {
                return;
            }
            adminUp = up;
            if (up) { // ipoib_open: the CM side in connected mode, then the joins
                if (link.mode() == IpoibMode.CONNECTED) {
                    cm = new IpoibCm(this, ibCm, cmOptions, sizes);
                }
                startIfActive();
            } else { // ipoib_stop: connections, memberships, carrier, paths
                stopCm(Drop.TX_CARRIER);
                mcast.stop(Drop.TX_CARRIER);
                carrierOff();
                started = false;
            }
        });
    }

    @Override
    public void setMtu(int mtu) {
        exec.call(() -> link.set(mtu));
    }

    @Override
    public List<CmConnection> connections() {
        IpoibCm c = cm;
        return c == null ? List.of() : c.connections();
    }

    @Override
    public OperState state() {
        return state;
    }

    @Override
    public IpoibStats stats() {
        return counters.snapshot();
    }

    @Override
    public List<IfAddress> addresses() {
        return addresses.list();
    }

    @Override
    public void addAddress(InetAddress address, int prefix) {
        addresses.add(address, prefix);
        if (address instanceof Inet6Address) {
            run(() -> addrconf.added(address));
        }
    }

    @Override
    public boolean removeAddress(InetAddress address, int prefix) {
        boolean removed = addresses.remove(address, prefix);
        if (removed && address instanceof Inet6Address) {
            run(() -> addrconf.removed(address));
        }
        return removed;
    }

    @Override
    public List<Neighbour> neighbours() {
        List<Neighbour> l = new java.util.ArrayList<>(arp.table().list());
        l.addAll(ndisc.table().list());
        return l;
    }

    @Override
    public List<InetAddress> groups() {
        return mcast.joined();
    }

    @Override
    public CompletableFuture<Void> joinGroup(InetAddress group) {
        Gid mgid = IpoibMgid.of(group, pkey);
        return exec.submit(() -> mcast.joinGroup(mgid, group));
    }

    @Override
    public CompletableFuture<Void> leaveGroup(InetAddress group) {
        Gid mgid = IpoibMgid.of(group, pkey);
        return exec.submit(() -> mcast.leaveGroup(mgid) ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(
                        new IllegalStateException(group.getHostAddress() + " is not joined on " + name)));
    }

    @Override
    public void setReceiver(IpoibReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public String toString() {
        return name + " (" + device.name() + "/" + port + ")";
    }
}
