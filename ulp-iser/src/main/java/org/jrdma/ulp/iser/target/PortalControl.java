package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;

/**
 * The runtime's side of portals: the configuration calls it when a portal's {@code enable_iser} turns true
 * (listen: an RDMA CM listener on IP:port) or false / the portal is deleted (stop listening; sessions that
 * came in through it stay, as in LIO).
 */
public interface PortalControl {
    /** Starts listening; throws {@link org.jrdma.ulp.iser.conn.IserTransportException} when it cannot (EADDRINUSE, no device). */
    void enable(InetSocketAddress portal);

    /**
     * As {@link #enable}, but an address no RDMA device has yet is listened on as soon as one has it (a
     * configured target at boot, its device made by another configuration in any order).
     */
    default void enableWhenReady(InetSocketAddress portal) {
        enable(portal);
    }

    void disable(InetSocketAddress portal);
}
