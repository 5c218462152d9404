package org.jrdma.hw.loopback;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.QpType;
import org.jrdma.sw.rdmavt.RucLoopback;
import org.jrdma.sw.rdmavt.RvtQp;
import org.jrdma.sw.rdmavt.SendWqe;

/**
 * The one switch every loopback port in the JVM hangs off: it hands out node GUIDs and LIDs (until
 * a subnet manager takes LIDs over) and routes a WQE to its destination QP by DLID, or by DGID when
 * the address vector carries a GRH.
 *
 * <p>A {@linkplain #managed() managed} fabric is a subnet without an SM yet: ports attach with LID 0 in
 * state INIT, and only an SM (through the SMA's SubnSet(PortInfo), {@code modifyPort}) gives them LIDs
 * and brings them to ACTIVE. The default fabric ({@link #INSTANCE}) behaves as if an SM had already run:
 * LIDs from 1 at attach, ports ACTIVE.
 *
 * <p>Links: the fabric is one switchless subnet in which every port reaches every other in one hop.
 * Each attached port gets a link number (1, 2, ...: the lowest free). A directed-route SMP needs no LID
 * but must still name the far end of its one hop; on the loopback an SMI (QP0) send names it with the
 * DLID {@link #LINK_LID_BASE} + link number (DLIDs a real SMP never carries: the multicast range), and
 * the receiver sees the same form as SLID, so the SMA's response (to {@code ahAttrFromWc}) goes back
 * over the link the request came in on.
 *
 * <p>The switch: link {@code n} is the cable from the CA port to switch port {@code n}; the switch's own
 * management port 0 is named by the DLID {@link #LINK_LID_BASE} itself (link 0). Its SMA ({@link LoopbackSwitch})
 * holds the multicast forwarding table an SM programs with SubnSet(MulticastForwardingTable), and multicast
 * DLIDs are forwarded by it. Unicast is forwarded by the fabric's LID table (no linear forwarding table).
 *
 * <p>VL15: only QP0 sends SMPs, on VL15, and the receiving port takes a VL15 packet only for QP0 and a packet for
 * QP0 only on VL15. So a send to QPN 0 from any QP but an SMI one, or an SMI send to any QPN but 0, reaches nobody
 * and counts in the receiving port's {@code port_rcv_errors} ({@link LoopbackDevice#rcvError}).
 */
public final class LoopbackFabric implements RucLoopback.Fabric {
    /** Our own EUI-64 prefix ("jrdm"): node GUID = prefix | device number << 8, port GUID = node GUID + port. */
    static final long GUID_PREFIX = 0x6a72_646d_0000_0000L;
    /** The first unicast LID the fabric hands out. */
    static final int FIRST_LID = 1;

    /** QP0 DLIDs {@code LINK_LID_BASE + n} name link {@code n}; see the class comment. */
    public static final int LINK_LID_BASE = 0xc000;

    public static final LoopbackFabric INSTANCE = new LoopbackFabric();

    private final boolean managed;
    private final LoopbackSwitch sw = new LoopbackSwitch(GUID_PREFIX | 0xffff_ff00L);
    private final Map<Integer, Port> byLink = new ConcurrentHashMap<>();
    private final Map<Port, Integer> linkOf = new ConcurrentHashMap<>();

    /** The default fabric: LIDs assigned at attach, ports ACTIVE. */
    public LoopbackFabric() {
        this(false);
    }

    private LoopbackFabric(boolean managed) {
        this.managed = managed;
    }

    /** A fabric without an SM: LID 0 and INIT until a subnet manager configures the ports. */
    public static LoopbackFabric managed() {
        return new LoopbackFabric(true);
    }

    public boolean isManaged() {
        return managed;
    }

    record Port(LoopbackDevice device, int port) {
    }

    private final Map<Integer, Port> byLid = new ConcurrentHashMap<>();
    private final Map<Gid, Port> byGid = new ConcurrentHashMap<>();
    private final AtomicInteger nextLid = new AtomicInteger(FIRST_LID);
    private final AtomicLong nextNode = new AtomicLong(1);

    long allocNodeGuid() {
        return GUID_PREFIX | nextNode.getAndIncrement() << 8;
    }

    int attach(LoopbackDevice d, int port, Gid gid) {
        Port p = new Port(d, port);
        synchronized (byLink) {
            int n = 1;
            while (byLink.containsKey(n)) {
                n++;
            }
            byLink.put(n, p);
            linkOf.put(p, n);
        }
        byGid.put(gid, p);
        if (managed) {
            return 0;
        }
        int lid;
        do {
            lid = nextLid.getAndIncrement();
            if (lid >= 0xc000) {
                nextLid.set(FIRST_LID);
                lid = nextLid.getAndIncrement();
            }
        } while (byLid.putIfAbsent(lid, new Port(d, port)) != null);
        return lid;
    }

    /** The link number of a port (see the class comment), or 0 if it is not attached. */
    public int linkOf(LoopbackDevice d, int port) {
        Integer n = linkOf.get(new Port(d, port));
        return n == null ? 0 : n;
    }

    /** Moves a port from one LID to another (0: none); false if {@code lid} belongs to another port. */
    boolean relid(LoopbackDevice d, int port, int oldLid, int lid) {
        Port p = new Port(d, port);
        if (lid != 0) {
            Port owner = byLid.putIfAbsent(lid, p);
            if (owner != null && !owner.equals(p)) {
                return false;
            }
        }
        if (oldLid != 0 && oldLid != lid) {
            byLid.remove(oldLid, p);
        }
        return true;
    }

    void detach(LoopbackDevice d) {
        byLid.values().removeIf(p -> p.device() == d);
        byGid.values().removeIf(p -> p.device() == d);
        synchronized (byLink) {
            byLink.values().removeIf(p -> p.device() == d);
            linkOf.keySet().removeIf(p -> p.device() == d);
        }
    }

    @Override
    public int slid(RvtQp src, SendWqe w) {
        AhAttr av = w.ahAttr();
        if (src.type == QpType.SMI && av != null && av.dlid() > LINK_LID_BASE && av.dlid() < 0xffff) {
            return LINK_LID_BASE + linkOf((LoopbackDevice) src.dev, src.port());
        }
        return RucLoopback.Fabric.super.slid(src, w);
    }

    @Override
    public void qkeyViolation(RvtQp dst) {
        ((LoopbackDevice) dst.dev).qkeyViolation(dst.port());
    }

    /** The port an address vector names, or null. */
    Port route(AhAttr av) {
        if (av == null) {
            return null;
        }
        if (av.grh() != null && av.grh().dgid() != null && !av.grh().dgid().isZero()) {
            return byGid.get(av.grh().dgid());
        }
        return byLid.get(av.dlid());
    }

    /** The multicast LIDs (IBA 7.11.1): {@code 0xc000..0xfffe}; 0xffff is the permissive LID. */
    static boolean isMulticastLid(int lid) {
        return lid >= 0xc000 && lid < 0xffff;
    }

    /** The fabric's switch (its MFT and SMA). */
    public LoopbackSwitch switchOf() {
        return sw;
    }

    /**
     * Multicast by MLID, as the switch forwards it: once an SM has programmed the switch's MFT, a copy goes out of
     * every switch port whose bit is set for the DLID except the one it came in on (a switch never sends a packet back out its ingress port), and each CA
     * port delivers it to its QPs attached to the group (with a GRH: to the MGID, which must carry that MLID). The
     * sender's own port delivers to its attached QPs as an HCA loops multicast back. A fabric whose switch no SM has
     * programmed (the unmanaged default) forwards to every port whose device has a QP attached, as if an SM had
     * programmed exactly the joined ports.
     */
    @Override
    public RvtQp[] multicast(RvtQp src, SendWqe w) {
        AhAttr av = w.ahAttr();
        if (av == null || !isMulticastLid(av.dlid())) {
            return new RvtQp[0];
        }
        Port in = new Port((LoopbackDevice) src.dev, src.port());
        java.util.List<Port> out = new java.util.ArrayList<>();
        if (sw.programmed()) {
            out.add(in);
            Integer inLink = linkOf.get(in);
            for (int link : sw.ports(av.dlid())) {
                Port p = byLink.get(link);
                if (p != null && (inLink == null || link != inLink)) {
                    out.add(p);
                }
            }
        } else {
            out.addAll(byLink.values());
        }
        Gid mgid = av.grh() == null ? null : av.grh().dgid();
        java.util.List<RvtQp> qps = new java.util.ArrayList<>();
        for (Port p : out) {
            if (p.device().isUp()) {
                attached(p, av.dlid(), mgid, qps);
            }
        }
        return qps.toArray(new RvtQp[0]);
    }

    /** The QPs of port {@code p} attached to the group (by MGID if given, which must carry {@code mlid}). */
    private static void attached(Port p, int mlid, Gid mgid, java.util.List<RvtQp> into) {
        RvtQp[] qps;
        if (mgid == null) {
            qps = p.device().mcast.qpsByMlid(mlid);
        } else {
            org.jrdma.sw.rdmavt.RvtMcastTable.Group g = p.device().mcast.group(mgid);
            qps = g == null || g.mlid != mlid ? new RvtQp[0] : g.qps();
        }
        for (RvtQp q : qps) {
            if (q.port() == p.port()) {
                into.add(q);
            }
        }
    }

    @Override
    public RvtQp destination(RvtQp src, SendWqe w) {
        boolean datagram = src.type == QpType.UD || src.type.isSpecial();
        if (!datagram) {
            RvtQp cached = src.cachedDestination();
            if (cached != null && ((LoopbackDevice) cached.dev).isUp()) {
                return cached;
            }
        }
        AhAttr av = datagram ? w.ahAttr() : src.av();
        int qpn = datagram ? w.remoteQpn() : src.destQpn();
        if (src.type == QpType.SMI && av != null && av.dlid() == LINK_LID_BASE) {
            Integer in = linkOf.get(new Port((LoopbackDevice) src.dev, src.port()));
            if (in != null) {
                sw.receive(src, w, in); // to the switch's port 0: its SMA answers
            }
            return null;
        }
        Port p = src.type == QpType.SMI && av != null && av.dlid() > LINK_LID_BASE && av.dlid() < 0xffff
                ? byLink.get(av.dlid() - LINK_LID_BASE) : route(av);
        if (p == null || !p.device().isUp()) {
            return null;
        }
        if ((qpn == 0) != (src.type == QpType.SMI)) {
            // only QP0 sends on VL15 and only VL15 reaches QP0 (IBA 13.5.3.1; qib/hfi1 ud_rcv drop the rest)
            p.device().rcvError(p.port());
            return null;
        }
        if (qpn == 0) {
            return p.device().specialQp(QpType.SMI, p.port());
        }
        if (qpn == 1) {
            return p.device().specialQp(QpType.GSI, p.port());
        }
        RvtQp dst = p.device().qp(qpn);
        if (dst == null || dst.port() != p.port() && dst.port() != 0) {
            return null;
        }
        if (!datagram) {
            src.cacheDestination(dst);
        }
        return dst;
    }

}
