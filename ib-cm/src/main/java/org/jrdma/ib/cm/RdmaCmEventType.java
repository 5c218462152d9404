package org.jrdma.ib.cm;

/** {@code enum rdma_cm_event_type}, in Linux's order (the ordinals are the uAPI values). */
public enum RdmaCmEventType {
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE,
    CONNECT_ERROR, UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN,
    MULTICAST_ERROR, ADDR_CHANGE, TIMEWAIT_EXIT;

    /** {@code rdma_event_str}. */
    public String str() {
        return "RDMA_CM_EVENT_" + name();
    }
}
