package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.CompletionQueue;

/** What ib-core gives a driver for each CQ it creates: the way back up. */
public interface CqContext {
    CompletionQueue cq();

    /** The CQ was armed and a completion arrived: run the ULP's completion handler ({@code cq->comp_handler}). */
    void completion();

    /** The CQ overran: raise CQ_ERR to its event handler. */
    void overflow();
}
