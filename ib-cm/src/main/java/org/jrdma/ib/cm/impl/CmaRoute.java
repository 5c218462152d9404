package org.jrdma.ib.cm.impl;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.List;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortState;

/**
 * Address resolution of {@code cma.c} / {@code addr.c}. RoCE: an IP address is on the device port whose
 * GID table holds it (RoCEv2 GIDs are the netdev's addresses, IPv4 as {@code ::ffff:a.b.c.d}); the source
 * address for a destination comes from the host's routes (the address a UDP socket connected to the
 * destination is given by the kernel). InfiniBand (AF_IB with the GID written as an IPv6 address): a GID
 * is on the IB port whose GID table holds it; a destination GID is reached from the first active IB port
 * with the same subnet prefix ({@code cma_resolve_ib_dev}).
 */
final class CmaRoute {
    private CmaRoute() {
    }

    /** Where an address lives: device, port and GID index. */
    record Endpoint(IbDevice device, int port, int gidIndex, Gid gid) {
    }

    /**
     * The device port whose GID table holds {@code ip}, or null. Only active ports count: RoCE ports first
     * (as before), then InfiniBand ports (whose GIDs, written as IPv6 addresses, are their addresses).
     */
    static Endpoint find(List<IbDevice> devices, InetAddress ip) {
        Endpoint e = find(devices, ip, LinkLayer.ETHERNET);
        return e != null ? e : find(devices, ip, LinkLayer.INFINIBAND);
    }

    /** The first active InfiniBand port whose GID 0 has {@code dst}'s subnet prefix, or null. */
    static Endpoint ibPortFor(List<IbDevice> devices, Gid dst) {
        if (dst.isV4Mapped() || dst.isZero()) {
            return null;
        }
        for (IbDevice d : devices) {
            if (!d.isRegistered()) {
                continue;
            }
            for (int p = 1; p <= d.physPortCnt(); p++) {
                if (d.linkLayer(p) != LinkLayer.INFINIBAND) {
                    continue;
                }
                try {
                    PortAttr pa = d.queryPort(p);
                    Gid g = d.queryGid(p, 0);
                    if (pa.state() == PortState.ACTIVE && g.subnetPrefix() == dst.subnetPrefix()) {
                        return new Endpoint(d, p, 0, g);
                    }
                } catch (RuntimeException e) {
                    // going away
                }
            }
        }
        return null;
    }

    private static Endpoint find(List<IbDevice> devices, InetAddress ip, LinkLayer ll) {
        Gid want = Gid.of(ip);
        for (IbDevice d : devices) {
            if (!d.isRegistered()) {
                continue;
            }
            for (int p = 1; p <= d.physPortCnt(); p++) {
                if (d.linkLayer(p) != ll) {
                    continue;
                }
                PortAttr pa;
                try {
                    pa = d.queryPort(p);
                } catch (RuntimeException e) {
                    continue; // going away
                }
                for (int i = 0; i < pa.gidTblLen(); i++) {
                    Gid g;
                    try {
                        g = d.queryGid(p, i);
                    } catch (RuntimeException e) {
                        break;
                    }
                    if (want.equals(g)) {
                        return pa.state() == PortState.ACTIVE ? new Endpoint(d, p, i, g) : null;
                    }
                }
            }
        }
        return null;
    }

    /** The source address the host's routes pick for {@code dst} ({@code rdma_resolve_ip}'s route lookup). */
    static InetAddress sourceFor(InetAddress dst) throws SocketException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(dst, 9));
            InetAddress a = s.getLocalAddress();
            if (a == null || a.isAnyLocalAddress()) {
                throw new SocketException("no route to " + dst.getHostAddress());
            }
            return a;
        }
    }
}
