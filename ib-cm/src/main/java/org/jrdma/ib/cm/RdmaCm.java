package org.jrdma.ib.cm;

/**
 * The RDMA CM as a service ({@code rdma_create_id}). Addresses are IP addresses and ports; the CM maps
 * them to a device, port and GID (RoCE: the GID tables of the devices), and connects with the IB CM
 * protocol on QP1, wire-compatible with Linux {@code cma.c}.
 */
public interface RdmaCm {
    /**
     * {@code rdma_create_id}.
     *
     * @param handler gets every event of the id (and of the ids a listener creates for its connect requests)
     * @param ps      the port space (TCP for RC, UDP for UD, IB)
     */
    RdmaCmId createId(RdmaCmEventHandler handler, RdmaPortSpace ps);
}
