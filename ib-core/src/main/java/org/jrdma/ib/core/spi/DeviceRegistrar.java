package org.jrdma.ib.core.spi;

/** {@code ib_register_device}. */
public interface DeviceRegistrar {
    /**
     * Checks the mandatory ops, allocates the name and index, queries the device and port
     * attributes, and calls every client's {@code add}.
     *
     * @throws org.jrdma.ib.core.VerbsException EINVAL if an op is missing or an attribute is
     *         invalid, EEXIST if the exact name is taken, ENOSPC if a pattern has no free number
     */
    RegisteredDevice register(DeviceRegistration registration);
}
