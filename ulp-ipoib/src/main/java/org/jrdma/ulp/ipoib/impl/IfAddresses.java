package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ulp.ipoib.IfAddress;

/**
 * The IPv4 and IPv6 addresses of one interface (Linux's {@code in_device} and {@code inet6_dev} address lists) and
 * what routing asks of them: on-link, broadcast, local. Read from any thread.
 */
final class IfAddresses {
    private final List<IfAddress> list = new CopyOnWriteArrayList<>();

    List<IfAddress> list() {
        return List.copyOf(list);
    }

    /**
     * {@code ip addr add}: a second add of the same address and prefix is refused as the kernel does; a multicast
     * or unspecified address is no interface address.
     */
    void add(InetAddress address, int prefix) {
        if (address.isMulticastAddress() || address.isAnyLocalAddress()) {
            throw new IllegalArgumentException("RTNETLINK answers: Invalid argument");
        }
        IfAddress a = new IfAddress(address, prefix);
        if (list.contains(a)) {
            throw new IllegalStateException("RTNETLINK answers: File exists");
        }
        list.add(a);
    }

    boolean remove(InetAddress address, int prefix) {
        return list.remove(new IfAddress(address, prefix));
    }

    boolean onLink(InetAddress dst) {
        return list.stream().anyMatch(a -> a.onLink(dst));
    }

    /** The limited broadcast or the broadcast address of one of the subnets. */
    boolean isBroadcast(Inet4Address dst) {
        byte[] b = dst.getAddress();
        boolean limited = (b[0] & b[1] & b[2] & b[3]) == (byte) 0xff;
        return limited || list.stream().anyMatch(a -> a.isSubnetBroadcast(dst));
    }

    boolean isLocal(InetAddress ip) {
        return list.stream().anyMatch(a -> a.address().equals(ip));
    }

    /** Whether another IPv6 address of ours has the solicited-node group of {@code a} (so it stays joined). */
    boolean sharesSolicitedNode(InetAddress a) {
        Inet6Address group = Ipv6.solicitedNode(a);
        return list.stream().anyMatch(o -> o.address() instanceof Inet6Address && !o.address().equals(a)
                && Ipv6.solicitedNode(o.address()).equals(group));
    }

    /** Whether an IPv6 link-local address is there (addrconf adds one on link up). */
    boolean hasLinkLocal() {
        return list.stream().anyMatch(a -> a.address() instanceof Inet6Address v6 && v6.isLinkLocalAddress());
    }
}
