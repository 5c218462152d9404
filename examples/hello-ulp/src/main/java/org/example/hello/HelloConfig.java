package org.example.hello;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * hello's configuration (PID {@value HelloUlp#PID}; in a service container the file
 * {@code etc/org.example.hello.cfg}). A change restarts the component: every device gets {@code remove}, then
 * {@code add} with the new values.
 */
@ObjectClassDefinition(name = "hello ULP", description = "The example ULP's RDMA CM listeners")
public @interface HelloConfig {
    @AttributeDefinition(name = "port", min = "1", max = "65535",
            description = "The RDMA CM port (TCP port space) of the first device's listener; more devices take the next free ones")
    int port() default HelloUlp.PORT;
}
