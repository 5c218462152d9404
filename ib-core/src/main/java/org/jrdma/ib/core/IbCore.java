package org.jrdma.ib.core;

import java.util.List;
import java.util.Optional;

/**
 * The registry of {@code drivers/infiniband/core/device.c}: devices and clients. In OSGi this is a
 * service (each bundle gets its own view, and whatever a bundle registered through it is
 * unregistered when the bundle stops); outside OSGi, {@link #newInstance()} makes a private one.
 */
public interface IbCore {
    /** {@code ib_register_client}: {@code add} runs now for every registered device. */
    void registerClient(IbClient client);

    /** {@code ib_unregister_client}: {@code remove} runs now for every device the client was added to. */
    void unregisterClient(IbClient client);

    /** Registered devices, in index order. */
    List<IbDevice> devices();

    Optional<IbDevice> device(String name);

    Optional<IbDevice> deviceByIndex(int index);

    /** {@code ib_device_rename}: EEXIST if the name is taken, EINVAL if it is not a valid name. */
    void renameDevice(IbDevice device, String newName);

    /** The driver side of the registry (registering devices); see {@code org.jrdma.ib.core.spi}. */
    org.jrdma.ib.core.spi.DeviceRegistrar registrar();

    /** A new, empty registry for use outside OSGi (unit tests, embedding). */
    static IbCore newInstance() {
        return new org.jrdma.ib.core.impl.DeviceRegistry();
    }
}
