package org.jrdma.ib.core.spi;

/** The driver's own MW object. */
public interface DriverMw {
    int rkey();
}
