package org.jrdma.ulp.ipoib.shell;

import java.net.Inet6Address;
import java.util.Map;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.Neighbour;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.HwAddr;

/** iproute2's output lines for an IPoIB interface ({@code ipaddress.c}, {@code ipneigh.c}). */
final class IpFormat {
    static final int MIN_MTU = 68;
    static final int MAX_MTU = 65520;

    private IpFormat() {
    }

    static String lladdr(byte[] a) {
        return HwAddr.format(a);
    }

    /** {@code 1: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP mode DEFAULT group default qlen 256}. */
    static String header(IpoibInterface i, boolean linkMode) {
        boolean carrier = i.state() == OperState.UP;
        String flags = !i.isUp() ? "BROADCAST,MULTICAST"
                : carrier ? "BROADCAST,MULTICAST,UP,LOWER_UP" : "NO-CARRIER,BROADCAST,MULTICAST,UP";
        return i.ifindex() + ": " + i.name() + ": <" + flags + "> mtu " + i.mtu() + " qdisc mq state "
                + (carrier ? "UP" : "DOWN") + (linkMode ? " mode DEFAULT" : "") + " group default qlen " + i.txQueueLen();
    }

    static String link(IpoibInterface i, boolean details) {
        String s = "    link/infiniband " + lladdr(i.hwAddr()) + " brd " + lladdr(i.broadcast());
        if (details) {
            s += " promiscuity 0 minmtu " + MIN_MTU + " maxmtu " + MAX_MTU + " \n    ipoib pkey  "
                    + String.format("0x%04x", i.pkey()) + " mode  " + i.mode().sysfs() + " umcast  0000 qpn "
                    + String.format("0x%06x", qpn(i.hwAddr())) + " parentbus infiniband parentdev " + i.device()
                    + " port " + i.port() + " ";
        }
        return s;
    }

    static int qpn(byte[] hw) {
        return (hw[1] & 0xff) << 16 | (hw[2] & 0xff) << 8 | hw[3] & 0xff;
    }

    /** {@code ip -s link}'s counters (iproute2 5.x layout); with {@code -s -s} the drops by reason as well. */
    static String stats(IpoibStats s, int level) {
        StringBuilder b = new StringBuilder();
        b.append("    RX:  bytes packets errors dropped  missed   mcast           \n");
        b.append(String.format("    %10d %7d %6d %7d %7d %7d %n", s.rxBytes(), s.rxPackets(), s.rxErrors(),
                s.rxDropped(), 0, s.multicast()));
        b.append("    TX:  bytes packets errors dropped carrier collsns           \n");
        b.append(String.format("    %10d %7d %6d %7d %7d %7d %n", s.txBytes(), s.txPackets(), s.txErrors(),
                s.txDropped(), 0, 0));
        if (level > 1 && (s.rcRxPackets() > 0 || s.rcTxPackets() > 0)) {
            b.append(String.format("    connected: RX %d bytes %d packets TX %d bytes %d packets%n", s.rcRxBytes(),
                    s.rcRxPackets(), s.rcTxBytes(), s.rcTxPackets()));
        }
        if (level > 1 && !s.drops().isEmpty()) {
            b.append("    drops:");
            for (Map.Entry<String, Long> e : s.drops().entrySet()) {
                b.append(' ').append(e.getKey()).append(' ').append(e.getValue());
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * {@code inet 10.0.0.1/24 scope global ib0} (the label is IPv4's) or {@code inet6 fe80::.../64 scope link }
     * (iproute2 leaves the space), then the lifetimes.
     */
    static String inet(IfAddress a, IpoibInterface i) {
        String life = "\n       valid_lft forever preferred_lft forever";
        if (a.address() instanceof Inet6Address v6) {
            return "    inet6 " + a + " scope " + (v6.isLinkLocalAddress() ? "link" : "global") + " " + life;
        }
        return "    inet " + a + " scope global " + i.name() + life;
    }

    /** {@code 10.0.0.2 dev ib0 lladdr 00:00:00:12:fe:80:... REACHABLE}; with {@code -d} the path's DLID and SL. */
    static String neigh(Neighbour n, IpoibInterface i, boolean details) {
        String s = IfAddress.text(n.address()) + " dev " + i.name();
        s += n.lladdr() == null ? "  " : " lladdr " + lladdr(n.lladdr()) + " ";
        if (details && n.dlid() != 0) {
            s += String.format("dlid 0x%04x sl %d ", n.dlid(), n.sl());
        }
        return s + n.state();
    }
}
