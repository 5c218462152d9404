package org.jrdma.ib.core.spi;

/** The driver's own object behind a core {@code Srq} (what {@code to_rsrq()} returns in rxe). */
public interface DriverSrq {
}
