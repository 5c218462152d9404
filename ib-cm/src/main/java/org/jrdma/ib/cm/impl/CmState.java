package org.jrdma.ib.cm.impl;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of one RDMA CM id: those of {@code cma.c} ({@code RDMA_CM_*}) with the connection phases the
 * consumer sees (REQ_SENT ... TIMEWAIT, following its IB CM id's {@code IbCmState} through the events).
 * Which calls are legal in which state is a table here, not ifs in the calls.
 */
enum CmState {
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, ADDR_BOUND, LISTEN,
    /** active: REQ sent, waiting for REP / REJ */
    REQ_SENT,
    /** passive: REQ received, CONNECT_REQUEST delivered, waiting for accept / reject */
    REQ_RCVD,
    /** passive: REP sent, waiting for RTU */
    REP_SENT,
    ESTABLISHED,
    /** DREQ sent, waiting for DREP */
    DREQ_SENT,
    /** DREQ received, DISCONNECTED delivered, waiting for the consumer's disconnect (which sends DREP) */
    DREQ_RCVD,
    /** disconnected; answers duplicate DREQs with DREP until TIMEWAIT_EXIT */
    TIMEWAIT,
    /** rejected, unreachable, or device removed */
    ERROR,
    DESTROYING;

    /** The consumer calls, and the states each is legal in ({@code cma_comp_exch} of cma.c). */
    enum Call {
        BIND(EnumSet.of(IDLE)),
        RESOLVE_ADDR(EnumSet.of(IDLE, ADDR_BOUND, ADDR_RESOLVED)),
        RESOLVE_ROUTE(EnumSet.of(ADDR_RESOLVED)),
        LISTEN(EnumSet.of(IDLE, ADDR_BOUND)),
        CONNECT(EnumSet.of(ROUTE_RESOLVED)),
        ACCEPT(EnumSet.of(REQ_RCVD)),
        REJECT(EnumSet.of(REQ_RCVD)),
        CREATE_QP(EnumSet.of(ADDR_RESOLVED, ROUTE_RESOLVED, REQ_RCVD, ADDR_BOUND)),
        DISCONNECT(EnumSet.of(REQ_SENT, REP_SENT, ESTABLISHED, DREQ_RCVD, DREQ_SENT, TIMEWAIT, ERROR));

        final Set<CmState> legal;

        Call(Set<CmState> legal) {
            this.legal = legal;
        }
    }
}
