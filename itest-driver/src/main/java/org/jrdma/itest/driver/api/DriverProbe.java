package org.jrdma.itest.driver.api;

import java.util.List;

import org.jrdma.ib.core.spi.UnregisterReport;

/**
 * A look inside the itest driver bundle. The state behind it is kept for the life of the bundle's
 * class loader, not of the component, so a probe obtained while the bundle was active still answers
 * after the bundle was stopped (that is when the leak check matters).
 */
public interface DriverProbe {
    /** Device name pattern of the device published as a {@code DeviceRegistration} service. */
    String WHITEBOARD_PATTERN = "tdev%d";
    /** Device name pattern of the device registered through {@code IbCore.registrar()}. */
    String DIRECT_PATTERN = "tdevx%d";

    /** Driver objects (PD, CQ, QP, MR, ...) alive now, summed over every TestDriver this bundle created. */
    int liveDriverObjects();

    /** TestDriver instances this bundle created so far. */
    int driversCreated();

    /** Devices of this bundle that are registered now (by name, in registration order). */
    List<String> registeredDevices();

    /** Every unregistration so far, in order (from {@code DeviceListener.unregistered}). */
    List<UnregisterReport> unregisterReports();

    /** Forgets the unregister reports (not the drivers: their leak count stays meaningful). */
    void clearReports();
}
