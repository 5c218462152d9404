/**
 * IP address resolution for the RDMA CM ({@code drivers/infiniband/core/addr.c}): the services that know which
 * RDMA device port owns an IP address ({@code rdma_translate_ip}) and how a destination is reached, its hardware
 * address through the neighbour table ({@code rdma_resolve_ip}). Network interfaces on RDMA ports (IPoIB's
 * {@code ib0}, ...) publish an {@link org.jrdma.ib.cm.addr.RdmaAddrResolver}; the RDMA CM asks every one before
 * its own RoCE lookup, so it depends on none of them.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.cm.addr;
