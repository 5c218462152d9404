package org.jrdma.ib.core.spi;

/** A driver's view of its device's registration. */
public interface DeviceListener {
    /** The device is registered and every client has seen {@code add}. */
    default void registered(RegisteredDevice device) {
    }

    /** Every client has seen {@code remove} and leftovers were destroyed. */
    default void unregistered(UnregisterReport report) {
    }
}
