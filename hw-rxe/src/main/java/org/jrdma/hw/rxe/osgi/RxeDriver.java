package org.jrdma.hw.rxe.osgi;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.core.IbCore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One rxe device per factory configuration of {@value #PID}: created when the configuration appears,
 * unregistered (clients get remove, work flushes, channels close) when it is deleted or the bundle stops.
 */
@Component(configurationPid = RxeDriver.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = RxeConfig.class, factory = true)
public class RxeDriver {
    public static final String PID = "org.jrdma.hw.rxe";
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe");

    @Reference
    IbCore core;

    private RxeNetDevice device;

    @Activate
    void activate(RxeConfig config) {
        if (config.netdev() == null || config.netdev().isBlank()) {
            throw new IllegalArgumentException("hw-rxe: netdev is required");
        }
        NettyWire.Transport t = NettyWire.Transport.valueOf(config.transport().trim().toUpperCase(java.util.Locale.ROOT));
        device = RxeNetDevice.open(core.registrar(), config.name(), config.netdev().trim(), config.addr(), config.mtu(), t);
        LOG.log(System.Logger.Level.DEBUG, () -> "hw-rxe: registered " + device.ibDevice().name() + " on "
                + config.netdev());
    }

    @Deactivate
    void deactivate() {
        if (device != null) {
            device.close();
            device = null;
        }
    }
}
