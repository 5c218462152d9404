package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.QpCap;

/** The driver's own QP object. */
public interface DriverQp {
    int qpNum();

    /** The capabilities granted (rounded up as the driver allocates). */
    QpCap cap();
}
