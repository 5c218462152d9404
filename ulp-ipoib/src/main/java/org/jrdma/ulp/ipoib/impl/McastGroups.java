package org.jrdma.ulp.ipoib.impl;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * The multicast groups of one interface (Linux's {@code ipoib_multicast.c}): the broadcast group, joined first as a
 * full member (MGID, PortGID, P_Key, JoinState, as {@code ipoib_mcast_join}); the IPv4 groups the user joins, with
 * the broadcast group's Q_Key, MTU, TClass, rate, SL, FlowLabel and HopLimit; the IPv6 groups the same way (all-nodes
 * and the solicited-node groups of the interface's addresses, as {@code addrconf} joins them) (RFC 4391 section 4 "MUST use the same");
 * and send-only groups made by sending to a group not joined (SendOnlyNonMember, up to {@value #MAX_QUEUE} packets
 * waiting, {@code IPOIB_MAX_MCAST_QUEUE}). Joins go through the SA client's {@code multicast.c}. Used on the
 * interface's thread; {@link #joined} reads from any.
 */
final class McastGroups {
    static final int MAX_QUEUE = 64;
    /** opensm's default for the IPoIB broadcast group of a partition ({@code partitions.conf}: ipoib, mtu=4). */
    static final int DEFAULT_QKEY = 0x0b1b;
    static final int ENETRESET = 102;
    private static final long JOIN = MCMemberRecord.MGID | MCMemberRecord.PORT_GID | MCMemberRecord.PKEY
            | MCMemberRecord.JOIN_STATE;
    private static final long FROM_BROADCAST = MCMemberRecord.QKEY | MCMemberRecord.MTU_SELECTOR
            | MCMemberRecord.MTU | MCMemberRecord.TRAFFIC_CLASS | MCMemberRecord.RATE_SELECTOR | MCMemberRecord.RATE
            | MCMemberRecord.SL | MCMemberRecord.FLOW_LABEL | MCMemberRecord.HOP_LIMIT;
    private static final long CREATE_BROADCAST = MCMemberRecord.QKEY | MCMemberRecord.MTU_SELECTOR
            | MCMemberRecord.MTU | MCMemberRecord.TRAFFIC_CLASS | MCMemberRecord.SL | MCMemberRecord.FLOW_LABEL;

    /** A frame waiting for its group's join. */
    private record Frame(int ethertype, byte[] payload) {
    }

    private static final class Group {
        final Gid mgid;
        final InetAddress ip;
        final boolean sendOnly;
        final CompletableFuture<Void> joined = new CompletableFuture<>();
        final ArrayDeque<Frame> queue = new ArrayDeque<>();
        Multicast join;
        AddressHandle ah;
        volatile boolean attached;

        Group(Gid mgid, InetAddress ip, boolean sendOnly) {
            this.mgid = mgid;
            this.ip = ip;
            this.sendOnly = sendOnly;
        }
    }

    private final IpoibNetdev dev;
    private final Group broadcast;
    private final Map<Gid, Group> groups = new ConcurrentHashMap<>();
    private MCMemberRecord broadcastRec;
    private int backoffMs = 1000;

    McastGroups(IpoibNetdev dev, Gid broadcastMgid) {
        this.dev = dev;
        this.broadcast = new Group(broadcastMgid, null, false);
    }

    /** Joins the broadcast group (first as a member of an existing group, then creating it if the SA has none). */
    void joinBroadcast() {
        join(broadcast, false);
    }

    private void join(Group g, boolean create) {
        MCMemberRecord r = new MCMemberRecord();
        r.mgid = g.mgid;
        r.portGid = dev.gid();
        r.pkey = dev.pkey();
        r.joinState = g.sendOnly ? MCMemberRecord.SENDONLY_NONMEMBER_JOIN : MCMemberRecord.FULLMEMBER_JOIN;
        long mask = JOIN;
        if (g != broadcast) {
            copyBroadcast(r);
            mask |= FROM_BROADCAST;
        } else if (create) {
            r.qkey = DEFAULT_QKEY;
            r.mtuSelector = PathRecord.SELECTOR_EQ;
            r.mtu = Mtu.MTU_2048.code();
            mask |= CREATE_BROADCAST;
        }
        g.join = dev.sa().joinMulticast(dev.ibDevice(), dev.port(), r, mask,
                (status, mc) -> dev.run(() -> answered(g, status, mc, create)));
    }

    private void copyBroadcast(MCMemberRecord r) {
        MCMemberRecord b = broadcastRec;
        r.qkey = b.qkey;
        r.mtuSelector = PathRecord.SELECTOR_EQ;
        r.mtu = b.mtu;
        r.trafficClass = b.trafficClass;
        r.rateSelector = PathRecord.SELECTOR_EQ;
        r.rate = b.rate;
        r.sl = b.sl;
        r.flowLabel = b.flowLabel;
        r.hopLimit = b.hopLimit;
    }

    private void answered(Group g, int status, Multicast mc, boolean create) {
        if (g.join != mc || dev.closing()) {
            return; // an answer to a join given up
        }
        if (status == 0) {
            attach(g, mc.rec());
        } else if (status == -ENETRESET) {
            reset();
        } else if (g == broadcast && !create) {
            join(g, true); // no broadcast group yet: no partitions.conf made one, the first port does
        } else if (g == broadcast) {
            dev.schedule(() -> {
                if (g.join == mc) {
                    join(g, false); // unless a reset started over meanwhile
                }
            }, backoffMs); // ipoib_mcast_join_task's backoff
            backoffMs = Math.min(backoffMs * 2, 16_000);
        } else {
            groups.remove(g.mgid, g);
            dev.counters().drop(Drop.TX_NO_GROUP, g.queue.size());
            g.joined.completeExceptionally(new IllegalStateException("the SA refused the join of " + g.mgid
                    + " (status " + status + ")"));
        }
    }

    private void attach(Group g, MCMemberRecord rec) {
        if (g == broadcast) {
            broadcastRec = rec;
            backoffMs = 1000;
            dev.broadcastJoined(rec);
        }
        if (!g.sendOnly) {
            dev.ud().qp.attachMcast(g.mgid, rec.mlid);
            g.attached = true;
        }
        g.ah = dev.ud().pd.createAh(new AhAttr().portNum(dev.port()).dlid(rec.mlid).sl(rec.sl).grh(g.mgid, 0));
        g.joined.complete(null);
        Frame f;
        while ((f = g.queue.poll()) != null) {
            dev.txPath().post(g.ah, HwAddr.MULTICAST_QPN, f.ethertype(), f.payload());
        }
        if (g == broadcast) {
            dev.carrierOn();
            groups.values().stream().filter(o -> o.join == null).forEach(o -> join(o, false));
        }
    }

    /**
     * A port event ended the memberships (-ENETRESET, {@code ipoib_ib_dev_flush}): carrier off, paths flushed,
     * every group detached; the broadcast group is joined again once the port is ACTIVE, the others after it.
     */
    private void reset() {
        for (Group g : all()) {
            release(g);
            g.join = null;
        }
        dev.restart();
    }

    /** Sends to a group: joined, or joining (queued), or not known (a send-only join starts). */
    void send(Gid mgid, int ethertype, byte[] payload) {
        Group g = mgid.equals(broadcast.mgid) ? broadcast : groups.get(mgid);
        if (g != null && g.ah != null) {
            dev.txPath().post(g.ah, HwAddr.MULTICAST_QPN, ethertype, payload);
            return;
        }
        if (g == null) {
            g = new Group(mgid, null, true);
            groups.put(mgid, g);
            join(g, false);
        }
        if (g.queue.size() >= MAX_QUEUE) {
            dev.counters().drop(Drop.TX_QUEUE_FULL);
            return;
        }
        g.queue.add(new Frame(ethertype, payload));
    }

    /** {@code IP_ADD_MEMBERSHIP}: joins at once if the broadcast group is joined, else right after it. */
    CompletableFuture<Void> joinGroup(Gid mgid, InetAddress ip) {
        Group g = groups.get(mgid);
        if (g != null && !g.sendOnly) {
            return g.joined;
        }
        if (g != null) {
            leave(g); // a send-only member becomes a full member
        }
        Group n = new Group(mgid, ip, false);
        groups.put(mgid, n);
        if (broadcastRec != null && broadcast.ah != null) {
            join(n, false);
        }
        return n.joined;
    }

    boolean leaveGroup(Gid mgid) {
        Group g = groups.get(mgid);
        if (g == null || g.sendOnly) {
            return false;
        }
        leave(g);
        return true;
    }

    private void leave(Group g) {
        groups.remove(g.mgid, g);
        dev.counters().drop(Drop.TX_NO_GROUP, g.queue.size());
        g.queue.clear();
        release(g);
        if (g.join != null) {
            g.join.close();
            g.join = null;
        }
    }

    /** Detached and without AH (the membership itself is the SA's business). */
    private void release(Group g) {
        if (g.attached && dev.ud() != null) {
            dev.ud().qp.detachMcast(g.mgid, g.join.rec().mlid);
        }
        g.attached = false;
        if (g.ah != null) {
            g.ah.destroy();
            g.ah = null;
        }
    }

    /** The groups joined as full member (IPv4 ones with {@link #joinGroup}, IPv6 ones by addrconf too). */
    List<InetAddress> joined() {
        List<InetAddress> out = new ArrayList<>();
        for (Group g : groups.values()) {
            if (!g.sendOnly && g.ip != null) {
                out.add(g.ip);
            }
        }
        return out;
    }

    /** Whether the QP is attached to the full-member group {@code mgid} (its traffic arrives). */
    boolean attached(Gid mgid) {
        Group g = groups.get(mgid);
        return g != null && g.attached;
    }

    private List<Group> all() {
        List<Group> out = new ArrayList<>(groups.values());
        out.add(broadcast);
        return out;
    }

    /**
     * {@code ipoib_mcast_stop_thread} + {@code ipoib_mcast_dev_flush} for {@code ip link set down}: every membership
     * left, send-only groups forgotten, full-member groups kept to be joined again once the broadcast group is.
     */
    void stop(Drop why) {
        leaveAll(why);
        groups.values().removeIf(g -> g.sendOnly);
    }

    /** Leaves every group, queued packets dropped as {@code why} (interface going away). */
    void close(Drop why) {
        leaveAll(why);
        for (Group g : all()) {
            g.joined.completeExceptionally(new IllegalStateException("interface removed"));
        }
        groups.clear();
    }

    private void leaveAll(Drop why) {
        for (Group g : all()) {
            dev.counters().drop(why, g.queue.size());
            g.queue.clear();
            release(g);
            if (g.join != null) {
                g.join.close();
                g.join = null;
            }
        }
    }
}
