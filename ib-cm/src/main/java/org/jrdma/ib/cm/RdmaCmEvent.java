package org.jrdma.ib.cm;

/**
 * {@code struct rdma_cm_event}.
 *
 * @param type     what happened
 * @param id       the id it happened to (for CONNECT_REQUEST: the new id of the connection)
 * @param listenId for CONNECT_REQUEST, the listening id; else null
 * @param status   0, or a negative errno (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE: -ETIMEDOUT...), or for
 *                 REJECTED the IB CM reject reason
 * @param param    the peer's connection parameters and private data (CONNECT_REQUEST, CONNECT_RESPONSE,
 *                 ESTABLISHED for the active side, REJECTED); else null
 */
public record RdmaCmEvent(RdmaCmEventType type, RdmaCmId id, RdmaCmId listenId, int status, RdmaConnParam param) {
    @Override
    public String toString() {
        return type.str() + (status != 0 ? " status " + status : "");
    }
}
