package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ib.cm.addr.RdmaAddrResolver;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortState;

/**
 * The registered {@link RdmaAddrResolver}s (the kernel's netdevs as {@code addr.c} sees them), asked in
 * registration order, and what {@code cma_acquire_dev_by_src_ip} / {@code cma_validate_port} make of an answer:
 * the active device port whose GID table holds the interface's GID. A resolver that throws is logged and
 * skipped: it must not break the RDMA CM.
 */
final class CmaAddrResolvers {
    private final List<RdmaAddrResolver> resolvers = new CopyOnWriteArrayList<>();

    void add(RdmaAddrResolver r) {
        resolvers.add(r);
    }

    void remove(RdmaAddrResolver r) {
        resolvers.remove(r);
    }

    /** {@code rdma_translate_ip} over every resolver: the first interface that owns {@code ip}, or null. */
    RdmaDevAddr translate(InetAddress ip) {
        for (RdmaAddrResolver r : resolvers) {
            try {
                RdmaDevAddr a = r.translateIp(ip);
                if (a != null) {
                    return a;
                }
            } catch (RuntimeException e) {
                RdmaCmService.LOG.log(System.Logger.Level.WARNING, "rdma_cm: address resolver " + r + ": " + e);
            }
        }
        return null;
    }

    /** {@code rdma_resolve_ip} over every resolver: the first that routes to {@code dst}, or null. */
    CompletableFuture<RdmaDevAddr> resolve(InetAddress src, InetAddress dst, int timeoutMs) {
        for (RdmaAddrResolver r : resolvers) {
            try {
                CompletableFuture<RdmaDevAddr> f = r.resolveIp(src, dst, timeoutMs);
                if (f != null) {
                    return f;
                }
            } catch (RuntimeException e) {
                RdmaCmService.LOG.log(System.Logger.Level.WARNING, "rdma_cm: address resolver " + r + ": " + e);
            }
        }
        return null;
    }

    /**
     * {@code cma_validate_port}: the endpoint of the interface's port, with the index of its GID in the port's
     * table; null if the port is not active or no longer has the GID (the device is going away).
     */
    static CmaRoute.Endpoint endpoint(RdmaDevAddr a) {
        IbDevice d = a.device();
        try {
            PortAttr pa = d.queryPort(a.port());
            if (!d.isRegistered() || pa.state() != PortState.ACTIVE) {
                return null;
            }
            for (int i = 0; i < pa.gidTblLen(); i++) {
                Gid g = d.queryGid(a.port(), i);
                if (a.sgid().equals(g)) {
                    return new CmaRoute.Endpoint(d, a.port(), i, g);
                }
            }
        } catch (RuntimeException e) {
            // going away
        }
        return null;
    }
}
