package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ulp.ipoib.IfAddress;

/**
 * The IPv4 addresses of one interface (Linux's {@code in_device} address list) and what routing asks of them:
 * on-link, broadcast, local. Read from any thread.
 */
final class IfAddresses {
    private final List<IfAddress> list = new CopyOnWriteArrayList<>();

    List<IfAddress> list() {
        return List.copyOf(list);
    }

    /** {@code ip addr add}: IPv4 only; a second add of the same address and prefix is refused as the kernel does. */
    void add(InetAddress address, int prefix) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("only IPv4 addresses so far: " + address.getHostAddress());
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

    boolean onLink(Inet4Address dst) {
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
}
