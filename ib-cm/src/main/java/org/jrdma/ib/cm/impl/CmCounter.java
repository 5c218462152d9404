package org.jrdma.ib.cm.impl;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The CM's counters: messages sent and received, and drops by reason. They print as they always have
 * ({@code dreq_sent}, {@code rej_no_listener}, ...): {@link #toString} is the lower-case name.
 */
enum CmCounter {
    RCVD, REQ_SENT, REQ_RCVD, REP_SENT, REP_RCVD, ESTABLISHED, REJ_SENT, REJ_RCVD, MRA_SENT, MRA_RCVD,
    DREQ_SENT, DREQ_RCVD, DREP_SENT, DREP_RCVD, TIMEOUTS,
    SIDR_REQ_SENT, SIDR_REQ_RCVD, SIDR_REP_SENT, SIDR_REP_RCVD,
    /** Duplicates: a REQ, DREQ, MRA or SIDR_REQ seen before; a duplicate answered with the last reply. */
    DUP_REQ, DUP_DREQ, DUP_MRA, DUP_SIDR_REQ, DUP_ANSWERED,
    /** REJs for a REQ: from a QP already connected, to no listener, of a transport other than RC, with a bad CMA header. */
    REJ_STALE_CONN, REJ_NO_LISTENER, REJ_BACKLOG, REJ_BAD_TRANSPORT, REJ_BAD_CMA_HEADER,
    /** SIDR_REQs refused: no listener, a bad CMA header. */
    SIDR_NO_LISTENER, SIDR_BAD_CMA_HEADER,
    /** A DREQ for no known connection (answered with a DREP). */
    DREQ_UNKNOWN_CONN,
    DROPPED_BAD_HEADER, DROPPED_MALFORMED, DROPPED_ERROR, DROPPED_NO_GRH, DROPPED_UNKNOWN_ATTR,
    DROPPED_UNSUPPORTED_ATTR, DROPPED_UNKNOWN_CONN, DROPPED_WRONG_QPN, DROPPED_WRONG_STATE,
    SEND_FAILED,
    /** RDMA CM: InfiniBand routes from the SA. */
    ROUTE_RESOLVED, ROUTE_ERROR;

    private static final CmCounter[] ALL = values();

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** One set of the counters, safe to bump from any thread. */
    static final class Counters {
        private final AtomicLongArray values = new AtomicLongArray(ALL.length);

        void count(CmCounter c) {
            values.incrementAndGet(c.ordinal());
        }

        long get(CmCounter c) {
            return values.get(c.ordinal());
        }

        /** The counters that are not zero, in declaration order. */
        Map<CmCounter, Long> snapshot() {
            Map<CmCounter, Long> m = new EnumMap<>(CmCounter.class);
            for (CmCounter c : ALL) {
                long v = values.get(c.ordinal());
                if (v != 0) {
                    m.put(c, v);
                }
            }
            return m;
        }
    }
}
