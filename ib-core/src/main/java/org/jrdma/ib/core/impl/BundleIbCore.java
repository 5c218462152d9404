package org.jrdma.ib.core.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DeviceRegistrar;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ServiceScope;

/**
 * The {@link IbCore} service, one instance per using bundle. It remembers the clients and devices
 * its bundle registered and unregisters them when the bundle releases the service (stops), so a
 * driver or ULP bundle that stops without cleaning up still gives every client exactly one remove.
 */
@Component(service = IbCore.class, scope = ServiceScope.BUNDLE)
public class BundleIbCore implements IbCore, DeviceRegistrar {
    @Reference
    RegistryComponent core;

    private final List<IbClient> clients = new ArrayList<>();
    private final List<RegisteredDevice> devices = new ArrayList<>();

    private DeviceRegistry r() {
        return core.registry;
    }

    @Override
    public void registerClient(IbClient client) {
        r().registerClient(client);
        synchronized (this) {
            clients.add(client);
        }
    }

    @Override
    public void unregisterClient(IbClient client) {
        synchronized (this) {
            clients.remove(client);
        }
        r().unregisterClient(client);
    }

    @Override
    public List<IbDevice> devices() {
        return r().devices();
    }

    @Override
    public Optional<IbDevice> device(String name) {
        return r().device(name);
    }

    @Override
    public Optional<IbDevice> deviceByIndex(int index) {
        return r().deviceByIndex(index);
    }

    @Override
    public void renameDevice(IbDevice device, String newName) {
        r().renameDevice(device, newName);
    }

    @Override
    public DeviceRegistrar registrar() {
        return this;
    }

    @Override
    public RegisteredDevice register(DeviceRegistration registration) {
        RegisteredDevice d = r().register(registration);
        synchronized (this) {
            devices.add(d);
        }
        return d;
    }

    @Deactivate
    void deactivate() {
        List<RegisteredDevice> ds;
        List<IbClient> cs;
        synchronized (this) {
            ds = new ArrayList<>(devices);
            cs = new ArrayList<>(clients);
            devices.clear();
            clients.clear();
        }
        for (RegisteredDevice d : ds) {
            d.unregister();
        }
        for (IbClient c : cs) {
            try {
                r().unregisterClient(c);
            } catch (VerbsException e) {
                // already unregistered by its owner
            }
        }
    }
}
