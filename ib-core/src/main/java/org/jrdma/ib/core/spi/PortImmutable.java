package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.LinkLayer;

/**
 * {@code struct ib_port_immutable}: what never changes about a port while the device is registered.
 *
 * @param linkLayer   InfiniBand (IB fabric: SMI QP0, LIDs) or Ethernet (RoCE: GIDs from IP addresses)
 * @param pkeyTblLen  P_Key table length
 * @param gidTblLen   GID table length
 * @param maxMadSize  largest MAD (256 for IB)
 */
public record PortImmutable(LinkLayer linkLayer, int pkeyTblLen, int gidTblLen, int maxMadSize) {
}
