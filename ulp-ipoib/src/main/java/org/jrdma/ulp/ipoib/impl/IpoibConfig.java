package org.jrdma.ulp.ipoib.impl;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma IPoIB",
        description = "IP over InfiniBand, as Linux's ib_ipoib module parameters (modprobe ib_ipoib"
                + " send_queue_size=N recv_queue_size=N); a change re-creates every interface.")
@interface IpoibConfig {
    @AttributeDefinition(name = "Send queue size",
            description = "Send ring entries per interface (send_queue_size; rounded up to a power of two, 128..8192)",
            min = "2", max = "8192")
    int sendQueueSize() default 128;

    @AttributeDefinition(name = "Receive queue size",
            description = "Receive ring entries per interface (recv_queue_size; rounded up to a power of two, 2..8192)",
            min = "2", max = "8192")
    int recvQueueSize() default 256;
}
