package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;

/**
 * What the configuration tells the runtime when a portal's {@code enable_iser} changes (targetcli
 * {@code /iscsi/IQN/tpg1/portals/IP:PORT enable_iser true|false}, or the portal is deleted). Idempotent: the
 * runtime keeps one listener per address however many portal groups name it.
 */
public interface PortalControl {
    /** Starts listening on {@code portal} (isert_setup_np); an error if the address cannot be bound. */
    void enable(InetSocketAddress portal);

    /** Stops listening on {@code portal}; established sessions go on (as LIO does). */
    void disable(InetSocketAddress portal);
}
