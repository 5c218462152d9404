package org.jrdma.ib.mad.sm;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma subnet manager",
        description = "A subnet manager with its SA on one InfiniBand port, as opensm runs on one port"
                + " (opensm -g GUID / -p PRIORITY / -s SWEEP).")
@interface SmConfig {
    @AttributeDefinition(name = "Device", description = "The device whose port the SM runs on, e.g. lo0")
    String device();

    @AttributeDefinition(name = "Port", description = "The port number (1..)", min = "1", max = "254")
    int port() default 1;

    @AttributeDefinition(name = "Sweep interval",
            description = "Seconds between light sweeps (opensm's sweep_interval; 0: sweep once, at start)",
            min = "0")
    int sweepInterval() default 10;

    @AttributeDefinition(name = "Priority", description = "SM priority 0..15 (opensm's sm_priority)",
            min = "0", max = "15")
    int priority() default 0;
}
