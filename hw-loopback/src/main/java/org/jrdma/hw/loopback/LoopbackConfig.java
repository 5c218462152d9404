package org.jrdma.hw.loopback;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma loopback device",
        description = "An in-JVM InfiniBand HCA on the loopback fabric. One factory configuration per device.")
@interface LoopbackConfig {
    @AttributeDefinition(name = "Name", description = "Device name, or a pattern with one %d (lowest free number)")
    String name() default "lo%d";

    @AttributeDefinition(name = "Ports", description = "Number of ports (1..16)", min = "1", max = "16")
    int ports() default 1;

    @AttributeDefinition(name = "Node GUID", description = "64-bit node GUID in hex; empty: assigned by the fabric")
    String nodeGuid() default "";
}
