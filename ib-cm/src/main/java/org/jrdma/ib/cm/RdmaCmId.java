package org.jrdma.ib.cm;

import java.net.InetSocketAddress;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;

/**
 * {@code struct rdma_cm_id}: one endpoint. The calls are librdmacm's and the kernel's; each either
 * completes at once or answers later with an event. Errors are {@link org.jrdma.ib.core.VerbsException}s
 * with Linux's errno (EADDRINUSE, EADDRNOTAVAIL, EINVAL for a call in the wrong state, ...).
 */
public interface RdmaCmId extends AutoCloseable {
    /** {@code rdma_bind_addr}: a local address (port 0: one is chosen); binds to its device if it has one. */
    void bindAddr(InetSocketAddress addr);

    /** {@code rdma_resolve_addr}: ADDR_RESOLVED or ADDR_ERROR. {@code src} may be null. */
    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs);

    /** {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR. */
    void resolveRoute(int timeoutMs);

    /** {@code rdma_listen}: CONNECT_REQUEST for each REQ to the bound address (wildcard: every device). */
    void listen(int backlog);

    /** {@code rdma_create_qp}: an RC (TCP port space) or UD (UDP) QP on the id's device, moved to INIT. */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr);

    /** {@code rdma_destroy_qp}. */
    void destroyQp();

    /** {@code rdma_connect}: sends the REQ; CONNECT_RESPONSE... ESTABLISHED, or REJECTED / UNREACHABLE. */
    void connect(RdmaConnParam param);

    /** {@code rdma_accept} on an id from CONNECT_REQUEST: sends the REP; ESTABLISHED when the RTU arrives. */
    void accept(RdmaConnParam param);

    /** {@code rdma_reject}: sends a REJ (consumer-defined reason) with the private data. */
    void reject(byte[] privateData);

    /** {@code rdma_disconnect}: the QP goes to ERR, DREQ (or DREP) is sent; DISCONNECTED follows. */
    void disconnect();

    /** {@code rdma_destroy_id}; the QP must have been destroyed first. */
    @Override
    void close();

    /** The device the id is bound to, or null before address resolution or binding. */
    IbDevice device();

    int portNum();

    QueuePair qp();

    InetSocketAddress localAddr();

    InetSocketAddress remoteAddr();

    RdmaPortSpace portSpace();

    /** The application's context (librdmacm's {@code id->context}). */
    Object context();

    void context(Object context);
}
