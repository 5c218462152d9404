package org.jrdma.hw.rxe.osgi;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.core.IbCore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One rxe device per factory configuration of {@value #PID}: created when the configuration appears,
 * unregistered (clients get remove, work flushes, channels close) when it is deleted or the bundle stops.
 */
@Component(configurationPid = RxeDriver.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = RxeConfig.class, factory = true)
public class RxeDriver {
    public static final String PID = "org.jrdma.hw.rxe";

    @Reference
    IbCore core;

    /** The Log Service's logger, injected by SCR; {@code null} where no Log Service runs. */
    @Reference(service = LoggerFactory.class, cardinality = ReferenceCardinality.OPTIONAL)
    Logger log;

    private RxeNetDevice device;

    @Activate
    void activate(RxeConfig config) {
        if (config.netdev() == null || config.netdev().isBlank()) {
            throw new IllegalArgumentException("hw-rxe: netdev is required");
        }
        NettyWire.Transport t = NettyWire.Transport.valueOf(config.transport().trim().toUpperCase(java.util.Locale.ROOT));
        device = RxeNetDevice.open(core.registrar(), config.name(), config.netdev().trim(), config.addr(), config.mtu(), t);
        RxeLinkOps.logAdded(log, device, "configuration " + config.name());
    }

    @Deactivate
    void deactivate() {
        if (device != null) {
            String name = device.ibDevice().name();
            device.close();
            RxeLinkOps.logRemoved(log, name, "configuration deleted or bundle stopping");
            device = null;
        }
    }
}
