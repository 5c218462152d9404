package org.jrdma.hw.rxe.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma rxe device",
        description = "A Soft-RoCE (RoCEv2, UDP 4791) device on a network interface, wire-compatible with Linux"
                + " rdma_rxe. One factory configuration per device.")
@interface RxeConfig {
    @AttributeDefinition(name = "Name", description = "Device name, or a pattern with one %d (lowest free number)")
    String name() default "rxe%d";

    @AttributeDefinition(name = "Netdev", description = "Network interface name, e.g. lo, eth0, rxetap0")
    String netdev();

    @AttributeDefinition(name = "Address", required = false,
            description = "Bind only this IP address; empty: all the interface's addresses")
    String addr() default "";

    @AttributeDefinition(name = "MTU", required = false,
            description = "Netdev MTU override (0: the interface's MTU); the active IB MTU is derived as rxe does")
    int mtu() default 0;

    @AttributeDefinition(name = "Transport", required = false, description = "Netty transport",
            options = {@org.osgi.service.metatype.annotations.Option(label = "auto", value = "AUTO"),
                    @org.osgi.service.metatype.annotations.Option(label = "nio", value = "NIO"),
                    @org.osgi.service.metatype.annotations.Option(label = "epoll", value = "EPOLL")})
    String transport() default "AUTO";
}
