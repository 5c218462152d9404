package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.ib.core.AddressHandle;
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
import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.jrdma.ulp.ipoib.IpoibReceiver;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.Neighbour;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * One IPoIB interface in datagram mode (Linux's {@code ipoib_dev_priv} with {@code ipoib_main.c}'s transmit side).
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
    private final ScheduledExecutorService exec;
    private final Counters counters = new Counters();
    private final AtomicBoolean pollQueued = new AtomicBoolean();
    private final List<IfAddress> addresses = new CopyOnWriteArrayList<>();
    private final Paths paths = new Paths(this);
    private final Neighbours neighbours = new Neighbours(this);
    private final McastGroups mcast;
    private final RxPath rx = new RxPath(this);
    private final HwAddr broadcast;
    private AutoCloseable events;
    private UdQp ud;
    private volatile HwAddr hwAddr;
    private volatile int mtu = ENCAP_MTU_MAX;
    private volatile int qkey;
    private volatile OperState state = OperState.DOWN;
    private volatile boolean closing;
    private volatile IpoibReceiver receiver;
    /** The broadcast join has been started (on the interface's thread only). */
    private boolean started;

    IpoibNetdev(IbClient client, SaClient sa, IbDevice device, int port, String name, int ifindex,
            QueueSizes sizes) {
        this.client = client;
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
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ipoib-" + name);
            t.setDaemon(true);
            return t;
        });
        e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // ARP and join timers end with the interface
        e.setRemoveOnCancelPolicy(true);
        this.exec = e;
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
        if (!started && device.queryPort(port).state() == PortState.ACTIVE) {
            started = true;
            mcast.joinBroadcast();
        }
    }

    /** The broadcast group's record is here: its Q_Key on the QP ({@code set_qkey}), the MTU from the group. */
    void broadcastJoined(MCMemberRecord rec) {
        qkey = rec.qkey;
        ud.qp.modify(new QpAttr().state(QpState.RTS).qkey(qkey));
        mtu = Math.min(Mtu.ofCode(rec.mtu).bytes(), device.queryPort(port).activeMtu().bytes()) - Encap.LEN;
    }

    void carrierOn() {
        state = OperState.UP;
        LOG.log(System.Logger.Level.INFO, name + ": link up, qpn 0x" + Integer.toHexString(ud.qpn()) + ", qkey 0x"
                + Integer.toHexString(qkey) + ", mtu " + mtu);
    }

    void carrierOff() {
        state = OperState.DOWN;
        paths.flush(Drop.TX_CARRIER);
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
        try {
            // not through guarded(): a packet queued just before the teardown is counted, not lost silently
            exec.execute(() -> {
                if (closing) {
                    counters.drop(Drop.TX_REMOVED);
                } else {
                    guarded(() -> xmit(p));
                }
            });
        } catch (RejectedExecutionException e) {
            counters.drop(Drop.TX_REMOVED);
        }
    }

    /** {@code ipoib_start_xmit} for one IPv4 packet, on the interface's thread. */
    void xmit(byte[] p) {
        if (p.length > mtu) {
            counters.drop(Drop.TX_OVERSIZE);
        } else if (p.length < 20 || (p[0] & 0xf0) != 0x40) {
            counters.drop(Drop.TX_NOT_IP);
        } else if (state != OperState.UP) {
            counters.drop(Drop.TX_CARRIER);
        } else {
            route(Ipv4.destination(p), p);
        }
    }

    /** Broadcast, multicast, on-link neighbour; anything else has no route (no gateways here). */
    private void route(Inet4Address dst, byte[] p) {
        if (dst.isMulticastAddress()) {
            mcast.send(IpoibMgid.ipv4(dst, pkey), Encap.IPV4, p);
        } else if (isBroadcast(dst)) {
            mcast.send(broadcast.gid(), Encap.IPV4, p);
        } else if (addresses.stream().anyMatch(a -> a.onLink(dst))) {
            neighbours.send(dst, p);
        } else {
            counters.drop(Drop.TX_NO_ROUTE);
        }
    }

    private boolean isBroadcast(Inet4Address dst) {
        byte[] b = dst.getAddress();
        boolean limited = (b[0] & b[1] & b[2] & b[3]) == (byte) 0xff;
        return limited || addresses.stream().anyMatch(a -> a.isSubnetBroadcast(dst));
    }

    /** Posts one frame ({@code ipoib_send}); counted as sent once posted. */
    void post(AddressHandle ah, int dqpn, int ethertype, byte[] payload) {
        if (ud == null || !ud.canSend()) {
            counters.drop(ud == null ? Drop.TX_CARRIER : Drop.TX_RING_FULL);
            return;
        }
        try {
            ud.send(ah, dqpn, qkey, ethertype, payload);
            counters.sent(Encap.LEN + payload.length);
        } catch (RuntimeException e) {
            counters.txErrors.increment();
        }
    }

    boolean isLocal(InetAddress ip) {
        return addresses.stream().anyMatch(a -> a.address().equals(ip));
    }

    // ---- the interface's thread ----

    /** Runs {@code task} on the interface's thread; false once it is gone. */
    boolean run(Runnable task) {
        try {
            exec.execute(() -> guarded(task));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    Future<?> schedule(Runnable task, long ms) {
        try {
            return exec.schedule(() -> guarded(task), ms, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    private void guarded(Runnable task) {
        if (closing) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, name + ": " + e, e);
        }
    }

    /**
     * {@code ipoib_remove_one} for this port: link down, waiting packets dropped and counted ({@code tx_removed}),
     * groups left, QP, CQ, AHs, MRs and PD freed, the thread ended. Runs on the caller (ib-core's remove).
     */
    void close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!run(() -> {
            teardown();
            done.complete(null);
        })) {
            return;
        }
        try {
            done.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, name + ": teardown did not finish: " + e);
        }
        exec.shutdown(); // sends queued meanwhile still run, and are counted as tx_removed
        try {
            exec.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
        neighbours.flush(Drop.TX_REMOVED);
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

    Paths paths() {
        return paths;
    }

    McastGroups mcast() {
        return mcast;
    }

    HwAddr broadcastAddr() {
        return broadcast;
    }

    Neighbours neighbourTable() {
        return neighbours;
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
        return mtu;
    }

    @Override
    public IpoibMode mode() {
        return IpoibMode.DATAGRAM;
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
        return List.copyOf(addresses);
    }

    @Override
    public void addAddress(InetAddress address, int prefix) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("only IPv4 addresses so far: " + address.getHostAddress());
        }
        IfAddress a = new IfAddress(address, prefix);
        if (addresses.contains(a)) {
            throw new IllegalStateException("RTNETLINK answers: File exists");
        }
        addresses.add(a);
    }

    @Override
    public boolean removeAddress(InetAddress address, int prefix) {
        return addresses.remove(new IfAddress(address, prefix));
    }

    @Override
    public List<Neighbour> neighbours() {
        return neighbours.list();
    }

    @Override
    public List<InetAddress> groups() {
        return mcast.joined();
    }

    @Override
    public CompletableFuture<Void> joinGroup(InetAddress group) {
        Gid mgid = IpoibMgid.ipv4(group, pkey);
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (!run(() -> mcast.joinGroup(mgid, group).whenComplete((v, e) -> complete(f, e)))) {
            f.completeExceptionally(new IllegalStateException(name + " is gone"));
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> leaveGroup(InetAddress group) {
        Gid mgid = IpoibMgid.ipv4(group, pkey);
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (!run(() -> complete(f, mcast.leaveGroup(mgid) ? null
                : new IllegalStateException(group.getHostAddress() + " is not joined on " + name)))) {
            f.completeExceptionally(new IllegalStateException(name + " is gone"));
        }
        return f;
    }

    private static void complete(CompletableFuture<Void> f, Throwable e) {
        if (e == null) {
            f.complete(null);
        } else {
            f.completeExceptionally(e);
        }
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
