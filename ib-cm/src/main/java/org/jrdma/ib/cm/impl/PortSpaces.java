package org.jrdma.ib.cm.impl;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;

/**
 * The port spaces of {@code cma.c} ({@code cma_ps_alloc}, {@code cma_alloc_any_port}, {@code cma_use_port}):
 * per {@link RdmaPortSpace}, which port is bound by which id. A port has one holder (no SO_REUSEADDR); an
 * ephemeral port is a random free one of Linux's default range. The service ID a port maps to is
 * {@link RdmaPortSpace#serviceId}. Not thread-safe: the RDMA CM calls it under its lock.
 */
final class PortSpaces {
    /** {@code net.ipv4.ip_local_port_range}'s default, which cma's {@code inet_get_local_port_range} reads. */
    static final int EPHEMERAL_LOW = 32768;
    static final int EPHEMERAL_HIGH = 60999;

    private final Map<RdmaPortSpace, Map<Integer, Object>> bound = new EnumMap<>(RdmaPortSpace.class);

    /** Binds {@code port} of {@code ps} to {@code holder}; EADDRINUSE if another id holds it. */
    int reserve(RdmaPortSpace ps, int port, Object holder) {
        Map<Integer, Object> m = bound.computeIfAbsent(ps, k -> new HashMap<>());
        if (m.containsKey(port)) {
            throw new VerbsException(Errno.EADDRINUSE, "rdma_bind_addr: port " + port + " is in use");
        }
        m.put(port, holder);
        return port;
    }

    /** Binds a free port of the ephemeral range, starting from a random one; EADDRINUSE when all are taken. */
    int reserveEphemeral(RdmaPortSpace ps, Object holder) {
        Map<Integer, Object> m = bound.computeIfAbsent(ps, k -> new HashMap<>());
        int range = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
        int start = ThreadLocalRandom.current().nextInt(range);
        for (int i = 0; i < range; i++) {
            int p = EPHEMERAL_LOW + (start + i) % range;
            if (!m.containsKey(p)) {
                m.put(p, holder);
                return p;
            }
        }
        throw new VerbsException(Errno.EADDRINUSE, "rdma_cm: no free port");
    }

    /** Releases {@code port} of {@code ps} if {@code holder} holds it. */
    void release(RdmaPortSpace ps, int port, Object holder) {
        Map<Integer, Object> m = bound.get(ps);
        if (m != null) {
            m.remove(port, holder);
        }
    }
}
