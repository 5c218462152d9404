package org.jrdma.ib.core.impl;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * OSGi whiteboard: an {@link IbClient} service is registered as a client, and a
 * {@link DeviceRegistration} service as a device, for as long as the service is there.
 */
@Component(service = {}, immediate = true)
public class Whiteboard {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ib.core");

    final RegistryComponent core;

    /** Constructor injection: the registry is there before the dynamic references below are bound. */
    @org.osgi.service.component.annotations.Activate
    public Whiteboard(@Reference RegistryComponent core) {
        this.core = core;
    }

    private final Map<IbClient, Boolean> clients = new ConcurrentHashMap<>();
    private final Map<DeviceRegistration, RegisteredDevice> devices = new ConcurrentHashMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addClient(IbClient client) {
        try {
            core.registry.registerClient(client);
            clients.put(client, Boolean.TRUE);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.ERROR, "whiteboard client " + client.name() + " refused: " + e.getMessage());
        }
    }

    void removeClient(IbClient client) {
        if (clients.remove(client) != null) {
            try {
                core.registry.unregisterClient(client);
            } catch (VerbsException e) {
                // unregistered by other means
            }
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addDevice(DeviceRegistration reg) {
        try {
            devices.put(reg, core.registry.register(reg));
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.ERROR, "whiteboard device " + reg.namePattern() + " refused: " + e.getMessage());
        }
    }

    void removeDevice(DeviceRegistration reg) {
        RegisteredDevice d = devices.remove(reg);
        if (d != null) {
            d.unregister();
        }
    }

    @Deactivate
    void deactivate() {
        devices.values().forEach(RegisteredDevice::unregister);
        devices.clear();
        for (IbClient c : clients.keySet()) {
            removeClient(c);
        }
    }
}
