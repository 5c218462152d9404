package org.jrdma.ulp.ipoib.shell;

import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.impl.HwAddr;
import org.jrdma.ulp.ipoib.impl.IpoibMgid;

/**
 * iproute2's {@code ip maddr [show [dev NAME]]} (ipmaddr.c): per interface its index and name, then the link-level
 * multicast addresses (IPoIB's 20 bytes: {@code 00:ff:ff:ff} and the group's MGID, as {@code ip_ib_mc_map} makes
 * them), then the IPv4 groups ({@code /proc/net/igmp}) and the IPv6 ones ({@code /proc/net/igmp6}); -4/-6 keep one
 * family. The broadcast group is the interface's broadcast address, not a multicast entry, as in Linux.
 */
final class IpMaddr {
    private IpMaddr() {
    }

    /** Prints {@code l}'s memberships; {@code family} 4, 6 or 0 (both). */
    static void show(List<IpoibInterface> l, int family, PrintStream out) {
        for (IpoibInterface i : l) {
            out.println(i.ifindex() + ":\t" + i.name());
            List<InetAddress> groups = i.groups();
            Set<String> links = new LinkedHashSet<>();
            for (InetAddress g : groups) {
                links.add(IpFormat.lladdr(hwAddr(g, i.pkey())));
            }
            if (family == 0) {
                links.forEach(a -> out.println("\tlink  " + a));
            }
            for (InetAddress g : groups) {
                if (g instanceof Inet4Address && family != 6) {
                    out.println("\tinet  " + IfAddress.text(g));
                }
            }
            for (InetAddress g : groups) {
                if (g instanceof Inet6Address && family != 4) {
                    out.println("\tinet6 " + IfAddress.text(g));
                }
            }
        }
    }

    /** The link-level address of {@code group}: no flags, the multicast QPN, the group's MGID. */
    static byte[] hwAddr(InetAddress group, int pkey) {
        return new HwAddr(0, HwAddr.MULTICAST_QPN, IpoibMgid.of(group, pkey)).bytes();
    }
}
