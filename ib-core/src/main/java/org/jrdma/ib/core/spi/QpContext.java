package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;

/** What ib-core gives a driver for each QP it creates. */
public interface QpContext {
    /** The core object, for {@link org.jrdma.ib.core.WorkCompletion#qp(QueuePair)}. */
    QueuePair qp();

    /** An async event about this QP (QP_FATAL, SQ_DRAINED, COMM_EST, LAST_WQE_REACHED, ...). */
    void event(EventType type);

    /** The driver moved the QP on its own (to ERR on a fatal error, SQD to SQE, ...). */
    void stateChanged(QpState state);
}
