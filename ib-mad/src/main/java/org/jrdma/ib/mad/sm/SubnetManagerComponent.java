package org.jrdma.ib.mad.sm;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.MadServiceComponent;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The SM and SA on the port named by the configuration {@value #PID}, as opensm runs on one port: the
 * SM starts when the device is there (now or when it is added) and stops when the device goes away, the
 * configuration is deleted, or the bundle stops. Directed-route hops are named the hw-loopback way
 * ({@link #LINK_LID_BASE}; see SubnetManager).
 */
@Component(configurationPid = SubnetManagerComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = SmConfig.class)
public class SubnetManagerComponent implements IbClient {
    public static final String PID = "org.jrdma.ib.sm";
    /** hw-loopback's {@code LoopbackFabric.LINK_LID_BASE}. */
    static final int LINK_LID_BASE = 0xc000;

    @Reference
    IbCore core;

    @Reference
    MadService mad;

    private MadLayer layer;
    private String deviceName;
    private int port;
    private long sweepMs;
    private int priority;
    private SubnetManager sm;

    @Activate
    void activate(SmConfig config) {
        activate(config, ((MadServiceComponent) mad).layer());
    }

    /** Without OSGi: the configuration and the MAD layer given. */
    void activate(SmConfig config, MadLayer layer) {
        if (config.device() == null || config.device().isBlank()) {
            throw new IllegalArgumentException("SM: device is required");
        }
        if (config.priority() < 0 || config.priority() > 15) {
            throw new IllegalArgumentException("SM: priority must be 0..15, not " + config.priority());
        }
        if (config.port() < 1 || config.sweepInterval() < 0) {
            throw new IllegalArgumentException("SM: port " + config.port() + ", sweep interval " + config.sweepInterval());
        }
        this.layer = layer;
        this.deviceName = config.device().trim();
        this.port = config.port();
        this.sweepMs = config.sweepInterval() * 1000L;
        this.priority = config.priority();
        core.registerClient(this);
    }

    @Deactivate
    void deactivate() {
        core.unregisterClient(this);
        stop();
    }

    /** The running SM, or null (device absent). */
    public synchronized SubnetManager subnetManager() {
        return sm;
    }

    @Override
    public String name() {
        return "sm";
    }

    @Override
    public void add(IbDevice device) {
        if (!device.name().equals(deviceName)) {
            return;
        }
        if (port > device.physPortCnt() || device.linkLayer(port) != LinkLayer.INFINIBAND) {
            SubnetManager.LOG.log(System.Logger.Level.WARNING, "SM: " + deviceName + " has no InfiniBand port " + port);
            return;
        }
        SubnetManager s = new SubnetManager(layer, device, port, LINK_LID_BASE, priority);
        synchronized (this) {
            sm = s;
        }
        // the first sweep before add returns, so that the fabric is configured (LIDs, SM LID, ACTIVE) by the
        // time the container is up and sminfo/saquery run; then one every sweep interval (0: none)
        boolean inline = !Thread.currentThread().getName().startsWith("ib-");
        s.start(sweepMs, inline ? sweepMs : 0);
        if (inline) {
            try {
                s.sweepNow();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                SubnetManager.LOG.log(System.Logger.Level.WARNING, "SM: first sweep on " + deviceName + "/" + port + ": " + e);
            }
        } else if (sweepMs == 0) {
            s.sweepSoon();
        }
        SubnetManager.LOG.log(System.Logger.Level.DEBUG, "SM: running on " + deviceName + "/" + port);
    }

    @Override
    public void remove(IbDevice device, Object clientData) {
        SubnetManager s;
        synchronized (this) {
            s = sm;
            if (s == null || s.device() != device) {
                return;
            }
            sm = null;
        }
        s.close();
    }

    private void stop() {
        SubnetManager s;
        synchronized (this) {
            s = sm;
            sm = null;
        }
        if (s != null) {
            s.close();
        }
    }
}
