package org.jrdma.hw.loopback;

import java.io.IOException;
import java.util.Hashtable;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The container's out-of-the-box device: one two-port loopback device, {@code lo0}, as the
 * factory configuration {@code org.jrdma.hw.loopback~default}. Set the framework property
 * {@code jrdma.loopback.default=false} to start without it; an existing configuration of that name
 * (edited or not) is left as it is.
 */
@Component(immediate = true, service = {})
public class DefaultConfiguration {
    static final String NAME = "default";

    @Reference
    ConfigurationAdmin configAdmin;

    @Activate
    void activate(BundleContext context) throws IOException {
        if ("false".equalsIgnoreCase(context.getProperty("jrdma.loopback.default"))) {
            return;
        }
        Configuration c = configAdmin.getFactoryConfiguration(LoopbackDriver.PID, NAME, "?");
        if (c.getProperties() == null) {
            Hashtable<String, Object> p = new Hashtable<>();
            p.put("name", "lo%d");
            p.put("ports", 2);
            c.update(p);
        }
    }
}
