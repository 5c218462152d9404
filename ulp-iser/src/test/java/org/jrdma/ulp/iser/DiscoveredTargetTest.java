package org.jrdma.ulp.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The discovery line as open-iscsi prints it, for an IPv4 portal and an IB port's GID. */
class DiscoveredTargetTest {

    @Test
    void ipv4AndGidPortalsPrintAsIscsiadm() {
        assertEquals("192.0.2.1:3260,1 iqn.2026-12.org.jrdma:t1",
                new DiscoveredTarget("iqn.2026-12.org.jrdma:t1", new InetSocketAddress("192.0.2.1", 3260), 1)
                        .toString());
        assertEquals("[fe80::6a72:646d:0:101]:3260,2 iqn.2026-12.org.jrdma:t1",
                new DiscoveredTarget("iqn.2026-12.org.jrdma:t1",
                        new InetSocketAddress("fe80:0:0:0:6a72:646d:0:101", 3260), 2).toString());
    }
}
