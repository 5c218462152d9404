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
 */
public final class LoopbackFabric implements RucLoopback.Fabric {
    /** Our own EUI-64 prefix ("jrdm"): node GUID = prefix | device number << 8, port GUID = node GUID + port. */
    static final long GUID_PREFIX = 0x6a72_646d_0000_0000L;
    /** The first unicast LID the fabric hands out. */
    static final int FIRST_LID = 1;

    public static final LoopbackFabric INSTANCE = new LoopbackFabric();

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
        int lid;
        do {
            lid = nextLid.getAndIncrement();
            if (lid >= 0xc000) {
                nextLid.set(FIRST_LID);
                lid = nextLid.getAndIncrement();
            }
        } while (byLid.putIfAbsent(lid, new Port(d, port)) != null);
        byGid.put(gid, new Port(d, port));
        return lid;
    }

    void detach(LoopbackDevice d) {
        byLid.values().removeIf(p -> p.device() == d);
        byGid.values().removeIf(p -> p.device() == d);
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
        Port p = route(av);
        if (p == null || !p.device().isUp()) {
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
