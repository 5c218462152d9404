package org.jrdma.ib.core.spi;

/** The driver's own object behind a core {@code Pd} (what {@code to_rpd()} returns in rxe). */
public interface DriverPd {
}
