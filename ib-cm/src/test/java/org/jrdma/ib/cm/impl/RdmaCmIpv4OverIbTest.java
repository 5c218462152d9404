package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.junit.jupiter.api.Test;

/**
 * Every scenario of {@link RdmaCmIbTest} with IPv4 addresses on the InfiniBand ports, as IPoIB's interfaces give
 * them: an {@link RdmaAddrResolver} whose table puts 10.1.0.1 on the first device's port, 10.1.0.2 on the second's
 * (and 10.1.0.3 on a raw peer), so binding, address resolution and the passive side's lookup go through it and the
 * CMA header carries IP version 4, as Linux's {@code cma_format_hdr} for AF_INET over IB.
 */
class RdmaCmIpv4OverIbTest extends RdmaCmIbTest {
    private final Map<InetAddress, IbDevice> table = new ConcurrentHashMap<>();

    @Override
    RdmaCmService openCm() throws Exception {
        RdmaCmService c = super.openCm();
        table.put(v4(1), dev0);
        table.put(v4(2), dev1);
        c.addAddrResolver(new Table());
        return c;
    }

    @Override
    InetAddress clientAddr() {
        return v4(1);
    }

    @Override
    InetAddress serverAddr() {
        return v4(2);
    }

    @Override
    InetAddress addrOf(IbDevice d) {
        for (Map.Entry<InetAddress, IbDevice> e : table.entrySet()) {
            if (e.getValue() == d) {
                return e.getKey();
            }
        }
        InetAddress a = v4(table.size() + 1);
        table.put(a, d);
        return a;
    }

    /**
     * What the RDMA CM makes of resolvers' answers: one that throws is skipped, the next one's errno is ADDR_ERROR's
     * status (and the id may resolve again); an interface whose GID its port does not have is ENODEV, for binding
     * ({@code cma_acquire_dev_by_src_ip}) and resolving.
     */
    @Test
    void resolverErrorsBecomeLinuxErrnos() throws Exception {
        InetAddress far = InetAddress.getByAddress(new byte[] {10, 9, 9, 9});
        InetAddress stale = InetAddress.getByAddress(new byte[] {10, 1, 0, 77});
        Gid notThere = Gid.of(InetAddress.getByName("fe80::dead"));
        cm.addAddrResolver(new RdmaAddrResolver() {
            @Override
            public RdmaDevAddr translateIp(InetAddress ip) {
                throw new IllegalStateException("a broken resolver");
            }

            @Override
            public CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs) {
                throw new IllegalStateException("a broken resolver");
            }
        });
        cm.addAddrResolver(new RdmaAddrResolver() {
            @Override
            public RdmaDevAddr translateIp(InetAddress ip) {
                return ip.equals(stale) ? new RdmaDevAddr("ib9", 9, dev0, 1, stale, notThere, null, null, null) : null;
            }

            @Override
            public CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs) {
                if (dst.equals(stale)) {
                    return CompletableFuture.completedFuture(
                            new RdmaDevAddr("ib9", 9, dev0, 1, stale, notThere, notThere, null, null));
                }
                return dst.equals(far) ? CompletableFuture.failedFuture(new VerbsException(Errno.ENETUNREACH, "far"))
                        : null;
            }
        });
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(null, new InetSocketAddress(far, 7190), 2000);
        assertEquals(-Errno.ENETUNREACH.value(), next(clientEvents, RdmaCmEventType.ADDR_ERROR).status());
        int firstPort = c.localAddr().getPort();
        c.resolveAddr(null, new InetSocketAddress(stale, 7190), 2000);
        assertEquals(-Errno.ENODEV.value(), next(clientEvents, RdmaCmEventType.ADDR_ERROR).status());
        assertNull(c.device());
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class,
                () -> c.bindAddr(new InetSocketAddress(stale, 0))).errno());
        c.resolveAddr(null, new InetSocketAddress(serverAddr(), 7190), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        assertEquals(dev0, c.device());
        c.close();
        RdmaCmId again = cm.createId((id, ev) -> 0, RdmaPortSpace.TCP);
        again.bindAddr(new InetSocketAddress(firstPort)); // the ports of the failed attempts were given back
        again.close();
    }

    static InetAddress v4(int host) {
        try {
            return InetAddress.getByAddress(new byte[] {10, 1, 0, (byte) host});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The interfaces' addresses as a table; the route to any other address of it is from 10.1.0.1 (or .2). */
    private final class Table implements RdmaAddrResolver {
        @Override
        public RdmaDevAddr translateIp(InetAddress ip) {
            IbDevice d = table.get(ip);
            return d == null ? null : addr(d, ip, null);
        }

        @Override
        public CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs) {
            IbDevice to = table.get(dst);
            if (to == null || (src != null && !table.containsKey(src))) {
                return null;
            }
            InetAddress from = src != null ? src : dst.equals(v4(1)) ? v4(2) : v4(1);
            return CompletableFuture.completedFuture(addr(table.get(from), from, to));
        }

        private static RdmaDevAddr addr(IbDevice d, InetAddress ip, IbDevice to) {
            return new RdmaDevAddr("ib" + ip.getAddress()[3], 0, d, 1, ip, d.queryGid(1, 0),
                    to == null ? null : to.queryGid(1, 0), null, null);
        }
    }
}
