package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;

/**
 * The IPoIB interfaces as the RDMA CM's {@code addr.c} sees the kernel's netdevs: an address added with {@code ip
 * addr add} is on its interface's port and GID ({@code rdma_translate_ip}); a destination is reached by the interface
 * routing picks (or the source address's) and its GID is in the 20-byte hardware address the ARP table gives
 * ({@code addr_resolve_neigh}, {@code rdma_addr_gid_offset} 4). IPv4 only: the interfaces' IPv6 addresses are not
 * offered to the RDMA CM (yet).
 */
final class IpoibAddrResolver implements RdmaAddrResolver {
    private final IpoibClient client;

    IpoibAddrResolver(IpoibClient client) {
        this.client = client;
    }

    @Override
    public RdmaDevAddr translateIp(InetAddress ip) {
        if (!(ip instanceof Inet4Address)) {
            return null; // IPv6 stays with the RDMA CM's GID lookup (an IPoIB link-local can equal the port GID)
        }
        IpoibNetdev d = owner(ip);
        return d == null ? null : devAddr(d, ip, null);
    }

    @Override
    public CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs) {
        if (!(dst instanceof Inet4Address to)) {
            return null;
        }
        IpoibNetdev out = src != null ? owner(src) : route(to);
        if (out == null) {
            return null; // not one of ours: the next resolver, or RoCE
        }
        if (out.isLocal(to)) { // IFF_LOOPBACK's case: the destination's address is the source's
            return CompletableFuture.completedFuture(devAddr(out, src != null ? src : to, out.hw()));
        }
        InetAddress from = src != null ? src : out.ifAddresses().list().stream().filter(a -> a.onLink(to))
                .map(IfAddress::address).findFirst().orElse(null);
        if (from == null || !out.ifAddresses().onLink(to) || !out.isUp()) {
            // ip_route_output_key: no route from this source (no gateways here)
            return CompletableFuture.failedFuture(new VerbsException(Errno.ENETUNREACH,
                    out.name() + ": " + to.getHostAddress() + " is not on-link"));
        }
        return out.arp().table().resolve(to, timeoutMs).thenApply(hw -> devAddr(out, from, hw));
    }

    /** The interface with {@code ip} among its addresses ({@code __ip_dev_find}), or null. */
    private IpoibNetdev owner(InetAddress ip) {
        return client.netdevs().stream().filter(d -> d.isLocal(ip)).findFirst().orElse(null);
    }

    /** The route's interface ({@link org.jrdma.ulp.ipoib.IpoibInterfaces#route}), else the owner's (loopback). */
    private IpoibNetdev route(Inet4Address dst) {
        IpoibInterface i = client.route(dst).filter(IpoibInterface::isUp).orElse(null);
        return i instanceof IpoibNetdev d ? d : owner(dst);
    }

    private static RdmaDevAddr devAddr(IpoibNetdev d, InetAddress src, HwAddr dst) {
        return new RdmaDevAddr(d.name(), d.ifindex(), d.ibDevice(), d.port(), src, d.gid(), dst == null ? null : dst.gid(),
                d.hwAddr(), dst == null ? null : dst.bytes());
    }
}
