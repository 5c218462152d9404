package org.jrdma.ulp.ipoib.tun;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma IPoIB TUN attachment",
        description = "ipoib attach IFACE tun NAME [netns NS] [addr A/PREFIX]..., kept as a configuration (etc/"
                + "org.jrdma.ulp.ipoib.tun-NAME.cfg): the host's IP stack on an IPoIB interface through a TUN device."
                + " Needs root or CAP_NET_ADMIN.")
@interface TunConfig {
    @AttributeDefinition(name = "Interface", description = "The IPoIB interface (ib0, ib1, ...); it may come later")
    String iface();

    @AttributeDefinition(name = "TUN device", description = "The TUN device's name (up to 15 characters)")
    String tun();

    @AttributeDefinition(name = "Network namespace",
            description = "Move the TUN device into this namespace (ip netns add NAME first); empty: stay", required = false)
    String netns() default "";

    @AttributeDefinition(name = "Addresses", description = "A.B.C.D/PREFIX and/or X:X::X/PREFIX (separated by commas or"
            + " spaces) on the TUN device and the interface; empty: none", required = false)
    String addr() default "";
}
