package org.jrdma.ib.cm;

/**
 * {@code rdma_cm_event_handler}. Events of one id are delivered one at a time, in order, on the CM's
 * thread; the handler may call the CM (accept, connect, disconnect...) but must not block on it.
 */
public interface RdmaCmEventHandler {
    /**
     * @return non-zero to have the CM destroy the id once the handler returns (kernel rdma_cm
     *         semantics; for CONNECT_REQUEST this rejects and destroys the new id)
     */
    int handle(RdmaCmId id, RdmaCmEvent event);
}
