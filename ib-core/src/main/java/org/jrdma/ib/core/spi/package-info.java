/**
 * The driver SPI: what a driver bundle (hw-loopback, hw-rxe) implements and calls. It mirrors
 * {@code struct ib_device_ops} and {@code ib_register_device()}: a driver fills a {@link DeviceOps}
 * table, describes the device in a {@link DeviceRegistration}, and registers it through
 * {@link DeviceRegistrar} (or publishes the registration as an OSGi service: whiteboard).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.jrdma.ib.core.spi;
