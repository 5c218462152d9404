package org.jrdma.ib.core.spi;

/** The driver's own CQ object. */
public interface DriverCq {
    /** Entries actually allocated (may be more than asked). */
    int cqe();
}
