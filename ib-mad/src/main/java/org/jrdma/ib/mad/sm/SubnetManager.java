package org.jrdma.ib.mad.sm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortModify;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.impl.MadLayer;

/**
 * A subnet manager on one port, as OpenSM runs on one port: it sweeps the subnet with directed-route
 * SMPs, gives every CA port a LID (keeping a port's LID when it is valid and unique, as OpenSM's
 * guid2lid does; otherwise the lowest free from 1, the SM's own port first), sets the SM LID, and brings
 * the ports INIT -> ARMED -> ACTIVE with SubnSet(PortInfo). It sweeps again every {@code sweepMs}, which
 * picks up hot-plugged ports and forgets vanished ones, and answers SMInfo as MASTER through its port's SMA.
 *
 * <p>Discovery on the loopback fabric: one switchless subnet where every port is one hop away. A hop
 * leaves the SM's port (initial path [1] = SM port) to the port at the far end of the link; the
 * loopback names the link with the DLID {@code linkLidBase + n} (see hw-loopback's LoopbackFabric), so
 * the SM probes links 1..(highest seen + {@link #PROBE_AHEAD}) each sweep. The own port is reached with
 * hop count 0 (local, never on the wire). The switch all ports hang off is reached at its management port 0 with
 * the DLID {@code linkLidBase} itself; the SM reads its NodeInfo and SwitchInfo and programs its multicast
 * forwarding table from the SA's groups ({@link McastManager}) after each sweep and each join or leave.
 *
 * <p>Threads: one "ib-sm" thread runs the sweeps (they wait for SMP responses, which arrive on the MAD
 * thread); {@link #close()} stops it.
 */
public final class SubnetManager implements AutoCloseable {
    static final System.Logger LOG = System.getLogger("org.jrdma.ib.mad.sm");
    public static final int ATTR_NODE_DESC = 0x0010;
    public static final int ATTR_NODE_INFO = 0x0011;
    public static final int ATTR_PORT_INFO = 0x0015;
    public static final int ATTR_SM_INFO = 0x0020;
    /** {@code IB_SMINFO_STATE_MASTER}. */
    public static final int SMINFO_MASTER = 3;
    /** Links probed beyond the highest one that answered. */
    static final int PROBE_AHEAD = 16;
    static final int SMP_TIMEOUT_MS = 100;

    /** What the SM knows of one CA port. */
    public record PortRecord(long portGuid, long nodeGuid, int portNum, int lid, int link, byte[] nodeInfo,
            byte[] nodeDescription, byte[] portInfo) {
    }

    private final MadLayer layer;
    private final IbDevice device;
    private final int port;
    private final int linkLidBase;
    private final int priority;
    private final ScheduledThreadPoolExecutor exec;
    private final Map<Long, PortRecord> ports = new ConcurrentHashMap<>();
    private final AtomicLong actCount = new AtomicLong();
    private final AtomicLong sweeps = new AtomicLong();
    private MadAgent agent;
    private SubnetAdministrator sa;
    /** Multicast forwarding (only on the SM thread). */
    private final McastManager mcast = new McastManager();
    private volatile long selfGuid;
    private volatile int smLid;
    private volatile int highestLink;
    private volatile boolean closed;

    public SubnetManager(MadLayer layer, IbDevice device, int port, int linkLidBase, int priority) {
        this.layer = layer;
        this.device = device;
        this.port = port;
        this.linkLidBase = linkLidBase;
        this.priority = priority;
        exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ib-sm");
            t.setDaemon(true);
            return t;
        });
        exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Registers on the port, marks it IsSM, and sweeps now and then every {@code sweepMs} (0: only on demand). */
    public SubnetManager start(long sweepMs) {
        return start(sweepMs, 0);
    }

    /** As {@link #start(long)}, with the first periodic sweep after {@code firstDelayMs}. */
    public SubnetManager start(long sweepMs, long firstDelayMs) {
        agent = layer.registerAgent(device, port, QpType.SMI, null, new Handler());
        device.modifyPort(port, new PortModify().setPortCapMask(PortModify.CAP_IS_SM));
        layer.smInfo(device, port, this::smInfo);
        sa = new SubnetAdministrator(this, layer, device, port);
        sa.open();
        if (sweepMs > 0) {
            exec.scheduleWithFixedDelay(this::sweepQuietly, firstDelayMs, sweepMs, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    public IbDevice device() { return device; }
    public int port() { return port; }
    /** The SM's own LID (0 before the first sweep). */
    public int smLid() { return smLid; }
    public long smGuid() { return selfGuid; }
    public int priority() { return priority; }
    public long activityCount() { return actCount.get(); }
    public long sweeps() { return sweeps.get(); }
    /** The SA on the SM's port (class 0x03 v2 on QP1), started with the SM. */
    public SubnetAdministrator sa() { return sa; }

    /** The ports found by the last sweep, by port GUID, in LID order. */
    public List<PortRecord> ports() {
        List<PortRecord> l = new ArrayList<>(ports.values());
        l.sort((a, b) -> Integer.compare(a.lid(), b.lid()));
        return Collections.unmodifiableList(l);
    }

    /** Sweeps now (on the SM thread) and waits for it. */
    public void sweepNow() throws InterruptedException {
        try {
            exec.submit(this::sweep).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("sweep failed: " + e.getCause(), e.getCause());
        }
    }

    /** Sweeps on the SM thread without waiting for it. */
    public void sweepSoon() {
        try {
            exec.execute(this::sweepQuietly);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "SM closed: no sweep");
        }
    }

    /** {@code struct ib_sm_info}: GUID, SM_Key, ActCount, Priority:4 | SMState:4. */
    byte[] smInfo() {
        Mad m = new Mad();
        m.u64(0, selfGuid).u64(8, 0).u32(16, actCount.get()).u8(20, priority << 4 | SMINFO_MASTER);
        return java.util.Arrays.copyOf(m.bytes(), 64);
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.log(System.Logger.Level.WARNING, "SM on " + device.name() + "/" + port + ": sweep failed", e);
            }
        }
    }

    // ------------------------------------------------------------------ sweep

    private void sweep() {
        if (closed) {
            return;
        }
        // 1. the own port (hop count 0), then every link of the segment
        Mad self = join(smp(0, Mad.METHOD_GET, ATTR_NODE_INFO, 0, null));
        if (self == null) {
            throw new IllegalStateException("the own SMA did not answer NodeInfo");
        }
        selfGuid = self.u64(64 + 20);
        Map<Long, Integer> found = new LinkedHashMap<>(); // port GUID -> link (0: self)
        Map<Long, Mad> nodeInfos = new LinkedHashMap<>();
        found.put(selfGuid, 0);
        nodeInfos.put(selfGuid, self);
        int probe = Math.max(highestLink, 0) + PROBE_AHEAD;
        List<CompletableFuture<Mad>> probes = new ArrayList<>();
        for (int k = 1; k <= probe; k++) {
            probes.add(smp(k, Mad.METHOD_GET, ATTR_NODE_INFO, 0, null));
        }
        for (int k = 1; k <= probe; k++) {
            Mad ni = join(probes.get(k - 1));
            if (ni == null) {
                continue;
            }
            long guid = ni.u64(64 + 20);
            highestLink = Math.max(highestLink, k);
            if (guid != selfGuid) {
                found.putIfAbsent(guid, k);
                nodeInfos.putIfAbsent(guid, ni);
            }
        }
        // 2. PortInfo of each: keep valid unique LIDs, give the rest the lowest free
        Map<Long, Mad> portInfos = new LinkedHashMap<>();
        for (Map.Entry<Long, Integer> e : found.entrySet()) {
            Mad pi = join(smp(e.getValue(), Mad.METHOD_GET, ATTR_PORT_INFO, 0, null));
            if (pi != null) {
                portInfos.put(e.getKey(), pi);
            }
        }
        Map<Long, Integer> lids = new LinkedHashMap<>();
        Set<Integer> used = new HashSet<>();
        for (Map.Entry<Long, Mad> e : portInfos.entrySet()) {
            int lid = e.getValue().u16(64 + 16);
            if (lid > 0 && lid < 0xc000 && used.add(lid)) {
                lids.put(e.getKey(), lid);
            }
        }
        int next = 1;
        for (Long guid : portInfos.keySet()) {
            if (!lids.containsKey(guid)) {
                while (used.contains(next)) {
                    next++;
                }
                used.add(next);
                lids.put(guid, next);
            }
        }
        Integer myLid = lids.get(selfGuid);
        if (myLid == null) {
            throw new IllegalStateException("no PortInfo from the own port");
        }
        smLid = myLid;
        // 3. configure: LID and SM LID, then ARMED and ACTIVE (the own port first)
        Map<Long, PortRecord> now = new LinkedHashMap<>();
        for (Map.Entry<Long, Mad> e : portInfos.entrySet()) {
            long guid = e.getKey();
            int link = found.get(guid);
            Mad pi = e.getValue();
            int state = pi.u8(64 + 32) & 0xf;
            int lid = lids.get(guid);
            Mad r = pi;
            if (pi.u16(64 + 16) != lid || pi.u16(64 + 18) != smLid || state == PortState.INIT.value()) {
                r = setPortInfo(link, pi, lid, state == PortState.INIT.value() ? PortState.ARMED.value() : 0);
                if (r != null && (r.u8(64 + 32) & 0xf) == PortState.ARMED.value()) {
                    r = setPortInfo(link, r, lid, PortState.ACTIVE.value());
                }
            } else if (state == PortState.ARMED.value()) {
                r = setPortInfo(link, pi, lid, PortState.ACTIVE.value());
            }
            if (r == null) {
                continue;
            }
            Mad nd = join(smp(link, Mad.METHOD_GET, ATTR_NODE_DESC, 0, null));
            Mad ni = nodeInfos.get(guid);
            now.put(guid, new PortRecord(guid, ni.u64(64 + 12), ni.u8(64 + 36), lid, link,
                    java.util.Arrays.copyOfRange(ni.bytes(), 64, 104),
                    nd == null ? new byte[64] : java.util.Arrays.copyOfRange(nd.bytes(), 64, 128),
                    java.util.Arrays.copyOfRange(r.bytes(), 64, 128)));
        }
        ports.keySet().retainAll(now.keySet());
        ports.putAll(now);
        if (sa != null) {
            sa.portsGone(now.keySet()); // their multicast memberships go with them
        }
        // 4. the switch (port 0, one hop away) and its multicast forwarding table
        Mad swNi = join(smp(SWITCH, Mad.METHOD_GET, ATTR_NODE_INFO, 0, null));
        Mad swSi = swNi == null ? null : join(smp(SWITCH, Mad.METHOD_GET, McastManager.ATTR_SWITCH_INFO, 0, null));
        mcast.found(swNi == null ? null : java.util.Arrays.copyOfRange(swNi.bytes(), 64, 128),
                swSi == null ? null : java.util.Arrays.copyOfRange(swSi.bytes(), 64, 128));
        programMcast();
        sweeps.incrementAndGet();
    }

    /** The SA's groups changed: reprogram the multicast forwarding on the SM thread (never on the MAD thread). */
    void mcastChanged() {
        try {
            exec.execute(() -> {
                if (!closed) {
                    programMcast();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "SM closed: multicast forwarding not updated");
        }
    }

    /** Waits until the multicast forwarding updates queued so far are done (up to 10 s). */
    public void mcastSync() throws InterruptedException {
        try {
            exec.submit(() -> { }).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("SM thread: " + e, e);
        }
    }

    /** The switch's node GUID (0: none found), and the SubnSet(MulticastForwardingTable) SMPs sent. */
    public long switchGuid() { return mcast.switchGuid(); }
    public long mftSmps() { return mcast.smpsSent(); }

    private void programMcast() {
        if (sa == null) {
            return;
        }
        Map<Long, Integer> links = new java.util.HashMap<>();
        for (PortRecord p : ports.values()) {
            links.put(p.portGuid(), p.link() == 0 ? mcast.smPort() : p.link());
        }
        mcast.program(sa.forwarding(), g -> links.getOrDefault(g, 0), (attr, mod, data) ->
                join(smp(SWITCH, Mad.METHOD_SET, attr, mod, data)));
    }

    private Mad setPortInfo(int link, Mad current, int lid, int state) {
        byte[] data = java.util.Arrays.copyOfRange(current.bytes(), 64, 128);
        Mad d = new Mad(java.util.Arrays.copyOf(data, Mad.SIZE));
        d.u16(16, lid).u16(18, smLid).u8(32, d.u8(32) & 0xf0 | state).u8(34, d.u8(34) & 0xf8);
        return join(smp(link, Mad.METHOD_SET, ATTR_PORT_INFO, 0, java.util.Arrays.copyOf(d.bytes(), 64)));
    }

    /** {@link #smp}'s link for the switch's port 0: one hop, DLID {@code linkLidBase} itself. */
    static final int SWITCH = -1;

    /**
     * A directed-route SMP: hop count 0 to the own SMA, one hop over link {@code link}, or one hop to the switch's
     * management port ({@link #SWITCH}).
     */
    CompletableFuture<Mad> smp(int link, int method, int attr, long mod, byte[] data) {
        Mad m = new Mad().baseVersion(1).mgmtClass(Mad.CLASS_SUBN_DIRECTED_ROUTE).classVersion(1).method(method)
                .tid(agent.newTid()).attrId(attr).attrMod(mod);
        m.u8(6, 0).u8(7, link == 0 ? 0 : 1).u16(32, 0xffff).u16(34, 0xffff);
        if (link != 0) {
            m.u8(128 + 1, port);
        }
        if (data != null) {
            System.arraycopy(data, 0, m.bytes(), 64, 64);
        }
        CompletableFuture<Mad> f = new CompletableFuture<>();
        int dlid = link == 0 ? 0 : link == SWITCH ? linkLidBase : linkLidBase + link;
        MadSend s = new MadSend(m).ah(new AhAttr().dlid(dlid)).remoteQpn(0)
                .remoteQkey(0).timeoutMs(link == 0 ? 1000 : SMP_TIMEOUT_MS).retries(1).context(f);
        actCount.incrementAndGet();
        try {
            agent.send(s);
        } catch (VerbsException e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    /** The answer, or null if none came or it carried an error status. */
    private static Mad join(CompletableFuture<Mad> f) {
        try {
            Mad m = f.get(10, TimeUnit.SECONDS);
            return (m.status() & 0x7fff) == 0 ? m : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        }
    }

    private static final class Handler implements MadHandler {
        @Override
        @SuppressWarnings("unchecked")
        public void recv(MadAgent agent, MadRecv recv) {
            if (recv.request() != null) {
                ((CompletableFuture<Mad>) recv.request().context()).complete(recv.mad());
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
            if (status != WcStatus.SUCCESS) {
                ((CompletableFuture<Mad>) send.context()).completeExceptionally(
                        new IllegalStateException(status.toString()));
            }
        }
    }

    /** Stops sweeping, stops answering SMInfo, clears IsSM, and ends the "ib-sm" thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        exec.shutdownNow();
        try {
            exec.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            layer.smInfo(device, port, null);
            device.modifyPort(port, new PortModify().clrPortCapMask(PortModify.CAP_IS_SM));
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.DEBUG, "SM close: " + e.getMessage());
        }
        if (sa != null) {
            sa.close();
        }
        if (agent != null) {
            agent.close();
        }
    }
}
