package org.jrdma.ib.cm.addr;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

/**
 * What the RDMA CM asks of the network interfaces on RDMA ports (Linux's {@code addr.c} over the kernel's IP
 * stack; {@code ib_get_net_dev_by_params} for incoming requests). Published as an OSGi service (whiteboard) by
 * the module that owns the interfaces, e.g. ulp-ipoib; the RDMA CM asks each registered one in turn, and a
 * {@code null} answer means "not mine", so the next one (and last the RoCE GID tables) is asked.
 *
 * <p>Errors are Linux's, as negative errno values in the RDMA CM's ADDR_ERROR event: the future of
 * {@link #resolveIp} fails with an {@link org.jrdma.ib.core.VerbsException} whose errno is {@code ETIMEDOUT} when
 * the neighbour did not answer within the timeout ({@code process_one_req}), {@code ENETUNREACH} when a given source
 * address cannot reach the destination ({@code ip_route_output_key}), {@code ENODEV} when the interface went away
 * during the resolution.
 */
public interface RdmaAddrResolver {
    /**
     * {@code rdma_translate_ip}: the interface that has {@code ip} as one of its addresses, with its device, port
     * and GID; null if none of this resolver's interfaces has it.
     */
    RdmaDevAddr translateIp(InetAddress ip);

    /**
     * {@code rdma_resolve_ip}: the route to {@code dst} (the interface it is on-link on; from {@code src}'s interface
     * when {@code src} is given) and the destination's hardware address from the interface's neighbour table,
     * asking it (ARP) if need be. A destination that is an address of the chosen interface itself resolves to the
     * interface's own hardware address (a loopback connection, {@code IFF_LOOPBACK}'s case).
     *
     * @param src       the source address, or null / a wildcard address to let routing pick it
     * @param timeoutMs how long the neighbour may take ({@code rdma_resolve_addr}'s timeout)
     * @return null if no interface of this resolver routes to {@code dst}; else the result, completed on no
     *         particular thread, and always completed: by {@code timeoutMs} at the latest, sooner with ENODEV if the
     *         interface goes away (the RDMA CM id waits in ADDR_QUERY until then)
     */
    CompletableFuture<RdmaDevAddr> resolveIp(InetAddress src, InetAddress dst, int timeoutMs);
}
