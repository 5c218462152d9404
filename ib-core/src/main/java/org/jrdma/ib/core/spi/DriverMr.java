package org.jrdma.ib.core.spi;

/** The driver's own MR object: keys are {@code index << 8 | key} as in rxe. */
public interface DriverMr {
    int lkey();

    int rkey();

    long iova();

    long length();

    int access();
}
