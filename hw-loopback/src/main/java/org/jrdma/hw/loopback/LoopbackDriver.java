package org.jrdma.hw.loopback;

import org.jrdma.ib.core.IbCore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One loopback device per factory configuration of {@value #PID}: created when the configuration
 * appears, unregistered (clients get remove, work flushes) when it is deleted or the bundle stops.
 */
@Component(configurationPid = LoopbackDriver.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = LoopbackConfig.class, factory = true)
public class LoopbackDriver {
    public static final String PID = "org.jrdma.hw.loopback";
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.loopback");

    @Reference
    IbCore core;

    private LoopbackDevice device;

    @Activate
    void activate(LoopbackConfig config) {
        if (config.ports() < 1 || config.ports() > 16) {
            throw new IllegalArgumentException("hw-loopback: ports must be 1..16, not " + config.ports());
        }
        long guid = 0;
        if (!config.nodeGuid().isBlank()) {
            try {
                guid = Long.parseUnsignedLong(config.nodeGuid().replace(":", "").replaceFirst("^0x", ""), 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("hw-loopback: nodeGuid '" + config.nodeGuid() + "' is not a hex GUID");
            }
        }
        device = new LoopbackDevice(LoopbackFabric.INSTANCE, config.name(), config.ports(), guid);
        device.register(core.registrar());
        LOG.log(System.Logger.Level.DEBUG, "hw-loopback: registered " + device.handle().device().name());
    }

    @Deactivate
    void deactivate() {
        if (device != null) {
            device.close();
            device = null;
        }
    }
}
