package org.jrdma.ib.core.spi;

/** The driver's own object behind a core {@code Ah} (what {@code to_rah()} returns in rxe). */
public interface DriverAh {
}
