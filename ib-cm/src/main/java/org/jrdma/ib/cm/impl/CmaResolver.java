package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaClient;
import org.jrdma.ib.mad.sa.SaException;

/**
 * Binding, address and route resolution of {@code cma.c} ({@code rdma_bind_addr}, {@code rdma_resolve_addr},
 * {@code rdma_resolve_route}): where an id is (device, port, GID) and its route to the peer, an
 * {@link IbCmPath} (RoCE: from the GIDs and the port; InfiniBand: the SA's PathRecord). IP addresses are first
 * asked of the network interfaces on RDMA ports ({@link CmaAddrResolvers}: IPoIB's addresses and ARP), then
 * looked up in the GID tables and the host's routes ({@link CmaRoute}).
 */
final class CmaResolver {
    /** rdma_resolve_addr's timeout when the consumer gives none (rping's). */
    static final int DEFAULT_TIMEOUT_MS = 2000;
    private final RdmaCmService cm;
    private final IbCore core;

    CmaResolver(RdmaCmService cm, IbCore core) {
        this.cm = cm;
        this.core = core;
    }

    void bind(CmaId id, InetSocketAddress addr) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.BIND);
            bindLocked(id, addr);
            id.state = CmState.ADDR_BOUND;
        }
    }

    void bindLocked(CmaId id, InetSocketAddress addr) {
        InetAddress ip = addr.getAddress();
        if (ip != null && !ip.isAnyLocalAddress()) {
            RdmaDevAddr netdev = cm.addrs.translate(ip);
            CmaRoute.Endpoint ep = netdev != null ? CmaAddrResolvers.endpoint(netdev) : CmaRoute.find(core.devices(), ip);
            if (ep == null && netdev != null) {
                // cma_acquire_dev_by_src_ip: the interface is there, its port is not usable
                throw new VerbsException(Errno.ENODEV, "rdma_bind_addr: " + netdev.netdev() + "'s port is not active");
            }
            if (ep == null) {
                throw new VerbsException(Errno.EADDRNOTAVAIL, "rdma_bind_addr: no RDMA device has " + ip.getHostAddress());
            }
            at(id, ep);
        }
        if (id.boundPort != 0) { // the implicit bind of a resolveAddr that failed (the id went back to IDLE)
            cm.ports.release(id.ps, id.boundPort, id);
            id.boundPort = 0;
        }
        int port = addr.getPort() != 0 ? cm.ports.reserve(id.ps, addr.getPort(), id) : cm.ports.reserveEphemeral(id.ps, id);
        id.boundPort = port;
        id.local = new InetSocketAddress(ip, port);
    }

    static void at(CmaId id, CmaRoute.Endpoint ep) {
        id.device = ep.device();
        id.port = ep.port();
        id.sgidIndex = ep.gidIndex();
        id.sgid = ep.gid();
        id.lidRouted = ep.device().linkLayer(ep.port()) == LinkLayer.INFINIBAND;
    }

    void resolveAddr(CmaId id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        if (dst == null || dst.getAddress() == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_resolve_addr: no destination");
        }
        InetAddress from;
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.RESOLVE_ADDR);
            if (id.state == CmState.IDLE) {
                bindLocked(id, src != null ? src : new InetSocketAddress(0));
            }
            id.state = CmState.ADDR_QUERY;
            id.remote = dst;
            from = id.local.getAddress();
        }
        // addr.c over the interfaces on RDMA ports (IPoIB: route, then ARP); outside the lock, answers come later
        CompletableFuture<RdmaDevAddr> viaNetdev = cm.addrs.resolve(from == null || from.isAnyLocalAddress() ? null : from,
                dst.getAddress(), timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS);
        if (viaNetdev != null) {
            viaNetdev.whenComplete((a, ex) -> cm.events.deliver(id, () -> addrResolved(id, a, ex)));
            return;
        }
        cm.events.deliver(id, () -> {
            if (id.state != CmState.ADDR_QUERY) {
                return null;
            }
            int status = id.device == null ? resolveDevice(id, dst.getAddress()) : 0;
            if (status != 0) {
                id.state = id.device != null ? CmState.ADDR_BOUND : CmState.IDLE;
                return new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, status, null);
            }
            id.dgid = Gid.of(dst.getAddress());
            id.state = CmState.ADDR_RESOLVED;
            return new RdmaCmEvent(RdmaCmEventType.ADDR_RESOLVED, id, null, 0, null);
        });
    }

    /**
     * {@code addr_handler}: the interface's answer. An unbound id takes the interface's port and source address
     * ({@code cma_acquire_dev_by_src_ip}: -ENODEV if the port is no longer usable); the destination GID is the one
     * in the neighbour's hardware address. A failed resolution is ADDR_ERROR with its errno.
     */
    private RdmaCmEvent addrResolved(CmaId id, RdmaDevAddr a, Throwable ex) {
        if (id.state != CmState.ADDR_QUERY) {
            return null;
        }
        int status = ex != null ? errno(ex, Errno.EINVAL) : 0;
        if (status == 0 && id.device == null) {
            CmaRoute.Endpoint ep = CmaAddrResolvers.endpoint(a);
            if (ep == null) {
                status = -Errno.ENODEV.value();
            } else {
                at(id, ep);
                id.local = new InetSocketAddress(a.srcIp(), id.local.getPort());
            }
        }
        if (status != 0) {
            id.state = id.device != null ? CmState.ADDR_BOUND : CmState.IDLE;
            return new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, status, null);
        }
        id.dgid = a.dgid();
        id.state = CmState.ADDR_RESOLVED;
        return new RdmaCmEvent(RdmaCmEventType.ADDR_RESOLVED, id, null, 0, null);
    }

    /** The negative errno a failed future carries ({@link VerbsException}, {@link SaException}), else {@code dflt}. */
    static int errno(Throwable ex, Errno dflt) {
        Throwable c = ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
        return c instanceof SaException se ? se.errno()
                : c instanceof VerbsException ve ? -ve.errno().value() : -dflt.value();
    }

    /**
     * The device port an unbound id reaches {@code dst} from: InfiniBand (AF_IB, the GID as an IPv6 address)
     * the first active IB port with the destination's subnet prefix, unless the address carries a scope
     * ({@code fe80::1%eth0}); otherwise RoCE by the host's routes.
     * 0, or -ENODEV / -ENETUNREACH.
     */
    private int resolveDevice(CmaId id, InetAddress dst) {
        try {
            // fe80::...%IF names an interface (AF_INET6 with sin6_scope_id): its netdev decides, not the IB prefix
            boolean scoped = dst instanceof java.net.Inet6Address a6 && (a6.getScopeId() != 0
                    || a6.getScopedInterface() != null);
            CmaRoute.Endpoint ep = scoped ? null : CmaRoute.ibPortFor(core.devices(), Gid.of(dst));
            if (ep == null) {
                ep = CmaRoute.find(core.devices(), CmaRoute.sourceFor(dst));
            }
            if (ep == null && dst.isLoopbackAddress()) {
                ep = CmaRoute.find(core.devices(), dst); // to a local device
            }
            if (ep == null) {
                return -Errno.ENODEV.value();
            }
            at(id, ep);
            id.local = new InetSocketAddress(ep.gid().toInetAddress(), id.local.getPort());
            return 0;
        } catch (java.io.IOException e) {
            return -Errno.ENETUNREACH.value();
        }
    }

    void resolveRoute(CmaId id, int timeoutMs) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.RESOLVE_ROUTE);
            id.state = CmState.ROUTE_QUERY;
            if (id.lidRouted) {
                resolveIbRoute(id, timeoutMs);
                return;
            }
        }
        // RoCE (cma_resolve_iboe_route): the route is the GIDs, no SA; the path MTU is the port's
        cm.events.deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            int mtu = id.device.queryPort(id.port).activeMtu().code();
            id.route = new IbCmPath(id.port, id.sgidIndex, id.sgid, id.dgid, false, 0, 0, 0, mtu, 0,
                    RdmaCmService.IBOE_PACKET_LIFETIME, 64, 0, flowLabel(id.local.getPort(), id.remote.getPort()));
            id.state = CmState.ROUTE_RESOLVED;
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        });
    }

    /** {@code rdma_calc_flow_label} as cma.c uses it for RoCEv2: from the two ports of the connection. */
    static int flowLabel(int srcPort, int dstPort) {
        return (srcPort * 31 + dstPort) & 0xfffff;
    }

    /**
     * {@code cma_resolve_ib_route} / {@code cma_query_ib_route}: the PathRecord (SGID, DGID) from the SA is the
     * route; ROUTE_ERROR carries {@code sa_query.c}'s status (-EINVAL when the SA answered an error,
     * -ETIMEDOUT, ...) and the id goes back to ADDR_RESOLVED.
     */
    private void resolveIbRoute(CmaId id, int timeoutMs) {
        SaClient client = cm.sa;
        CompletableFuture<PathRecord> f;
        if (client == null) {
            f = CompletableFuture.failedFuture(new SaException(-1, -Errno.ENODEV.value(), "rdma_cm: no SA client"));
        } else {
            try {
                f = client.pathRecordGet(id.device, id.port, id.sgid, id.dgid, timeoutMs > 0 ? timeoutMs : 2000);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
        }
        f.whenComplete((pr, ex) -> cm.events.deliver(id, () -> {
            if (id.state != CmState.ROUTE_QUERY) {
                return null;
            }
            if (ex != null) {
                int status = errno(ex, Errno.EINVAL);
                cm.counters.count(CmCounter.ROUTE_ERROR);
                id.state = CmState.ADDR_RESOLVED;
                return new RdmaCmEvent(RdmaCmEventType.ROUTE_ERROR, id, null, status, null);
            }
            id.route = new IbCmPath(id.port, id.sgidIndex, id.sgid, id.dgid, true, pr.slid, pr.dlid, pr.sl, pr.mtu,
                    pr.rate, pr.packetLifeTime, pr.hopLimit, pr.trafficClass, pr.flowLabel);
            id.state = CmState.ROUTE_RESOLVED;
            cm.counters.count(CmCounter.ROUTE_RESOLVED);
            return new RdmaCmEvent(RdmaCmEventType.ROUTE_RESOLVED, id, null, 0, null);
        }));
    }
}
