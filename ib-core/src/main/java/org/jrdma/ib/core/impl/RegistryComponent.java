package org.jrdma.ib.core.impl;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The one registry of the framework. Private to ib-core: other bundles reach it through the
 * bundle-scoped {@link org.jrdma.ib.core.IbCore} service. Stopping ib-core unregisters every
 * device (clients get remove) and every client.
 */
@Component(service = RegistryComponent.class, immediate = true)
public class RegistryComponent {
    final DeviceRegistry registry = new DeviceRegistry();

    @Deactivate
    void deactivate() {
        registry.shutdown();
    }

    public DeviceRegistry registry() {
        return registry;
    }
}
