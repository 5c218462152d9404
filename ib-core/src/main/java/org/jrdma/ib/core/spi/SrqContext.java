package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.SharedReceiveQueue;

/** What ib-core gives a driver for each SRQ it creates. */
public interface SrqContext {
    SharedReceiveQueue srq();

    /** SRQ_LIMIT_REACHED (the driver disarms the limit first, as the spec says) or SRQ_ERR. */
    void event(EventType type);
}
