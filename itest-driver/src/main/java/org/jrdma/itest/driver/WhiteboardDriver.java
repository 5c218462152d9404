package org.jrdma.itest.driver;

import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.itest.driver.api.DriverProbe;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Route 1: the device is a {@link DeviceRegistration} service (whiteboard); ib-core registers it
 * while the service is there. The component also is the {@link DriverProbe} service, which
 * {@link DirectDriver} references: that makes the order fixed (this device is registered first and
 * unregistered last).
 */
@Component(service = DriverProbe.class, immediate = true)
public class WhiteboardDriver implements DriverProbe {
    private ServiceRegistration<DeviceRegistration> registration;

    @Activate
    void activate(BundleContext context) {
        DeviceRegistration reg = Ledger.newDevice(WHITEBOARD_PATTERN);
        registration = context.registerService(DeviceRegistration.class, reg,
                FrameworkUtil.asDictionary(Map.of("jrdma.itest.route", "whiteboard")));
    }

    @Deactivate
    void deactivate() {
        registration.unregister();   // ib-core unregisters the device: every client gets remove
        registration = null;
    }

    @Override
    public int liveDriverObjects() {
        return Ledger.PROBE.liveDriverObjects();
    }

    @Override
    public int driversCreated() {
        return Ledger.PROBE.driversCreated();
    }

    @Override
    public List<String> registeredDevices() {
        return Ledger.PROBE.registeredDevices();
    }

    @Override
    public List<UnregisterReport> unregisterReports() {
        return Ledger.PROBE.unregisterReports();
    }

    @Override
    public void clearReports() {
        Ledger.PROBE.clearReports();
    }
}
