package org.jrdma.ulp.ipoib.impl;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

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

    @AttributeDefinition(name = "Mode",
            description = "The mode new interfaces start in (/sys/class/net/ibN/mode): datagram (UD) or connected"
                    + " (RC connections to peers that offer them, MTU up to 65520)",
            options = {@Option(label = "datagram", value = "datagram"), @Option(label = "connected", value = "connected")})
    String mode() default "datagram";

    @AttributeDefinition(name = "Connected mode idle timeout (s)",
            description = "A passive connection without traffic this long is closed (IPOIB_CM_RX_TIMEOUT)", min = "1")
    int cmRxTimeout() default 512;

    @AttributeDefinition(name = "Connected mode fallback (s)",
            description = "After a peer rejects a connection or the attempt fails, it is reached by datagram this long",
            min = "0")
    int cmFallback() default 60;
}
