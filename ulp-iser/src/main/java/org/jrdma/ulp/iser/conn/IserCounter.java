package org.jrdma.ulp.iser.conn;

import java.util.Locale;

/** What one connection counts (its completion thread writes them; anyone reads). */
public enum IserCounter {
    SENDS, SENDS_WITH_INV, RECVS, RECVS_WITH_INV, RDMA_READS, RDMA_WRITES, READ_BYTES, WRITE_BYTES,
    /** A WR that waited for a send queue slot or a send buffer (send queue full). */
    SQ_QUEUED,
    /** {@code ib_post_send} calls: a chain of WRs (what one poll batch's handlers posted) is one. */
    SQ_POSTS,
    /** A completion in error other than a flush. */
    WC_ERRORS,
    FLUSHED,
    MALFORMED_PDUS,
    /** A handler threw (logged, the connection goes on). */
    HANDLER_ERRORS;

    /** Linux-style lower-case name ({@code rdma statistic} style). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
