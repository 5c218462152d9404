package org.jrdma.ib.core.spi;

import java.util.List;

import org.jrdma.ib.core.ResourceInfo;

/**
 * What happened when a device went away.
 *
 * @param deviceName          the name it had
 * @param clientsRemoved      the clients whose {@code remove} ran, in call order
 * @param leaked              resources clients left behind, destroyed by ib-core
 * @param flushedWorkRequests work requests completed with WR_FLUSH_ERR while destroying them
 */
public record UnregisterReport(String deviceName, List<String> clientsRemoved, List<ResourceInfo> leaked,
        int flushedWorkRequests) {
}
