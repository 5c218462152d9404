package org.jrdma.itest.driver;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.itest.driver.api.DriverProbe;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Route 2: the device is registered through the IbCore service ({@code ib_register_device}) and
 * unregistered on deactivate. The reference to {@link DriverProbe} only orders this component after
 * {@link WhiteboardDriver}.
 */
@Component(service = {}, immediate = true)
public class DirectDriver {
    @Reference
    IbCore core;

    @Reference
    DriverProbe order;

    private RegisteredDevice device;

    @Activate
    void activate() {
        device = core.registrar().register(Ledger.newDevice(DriverProbe.DIRECT_PATTERN));
    }

    @Deactivate
    void deactivate() {
        // idempotent: if ib-core went first (it unregisters what this bundle registered), this returns its report
        device.unregister();
        device = null;
    }
}
