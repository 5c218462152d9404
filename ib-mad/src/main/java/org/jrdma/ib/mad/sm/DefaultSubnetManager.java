package org.jrdma.ib.mad.sm;

import java.io.IOException;
import java.util.Hashtable;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The container's subnet manager out of the box: opensm on port 1 of hw-loopback's default device
 * {@code lo0} (the configuration {@value SubnetManagerComponent#PID}), so that {@code sminfo} and
 * {@code saquery} answer as on a real fabric. Set the framework property {@code jrdma.sm.default=false}
 * (or {@code jrdma.loopback.default=false}) to start without it; an existing configuration is left as it is.
 */
@Component(immediate = true, service = {})
public class DefaultSubnetManager {
    @Reference
    ConfigurationAdmin configAdmin;

    @Activate
    void activate(BundleContext context) throws IOException {
        if ("false".equalsIgnoreCase(context.getProperty("jrdma.sm.default"))
                || "false".equalsIgnoreCase(context.getProperty("jrdma.loopback.default"))) {
            return;
        }
        Configuration c = configAdmin.getConfiguration(SubnetManagerComponent.PID, "?");
        if (c.getProperties() == null) {
            Hashtable<String, Object> p = new Hashtable<>();
            p.put("device", "lo0");
            p.put("port", 1);
            p.put("sweepInterval", 10);
            c.update(p);
        }
    }
}
