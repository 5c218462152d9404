package org.jrdma.ulp.ipoib;

import java.nio.ByteBuffer;

/** Where an interface hands the IP packets it receives (what the host's IP stack is to Linux's ipoib). */
@FunctionalInterface
public interface IpoibReceiver {
    /**
     * One IPv4 or IPv6 packet, without the IPoIB header, trimmed to the IP total length; the buffer is the
     * receiver's. Runs on the interface's thread: it must not block.
     */
    void receive(IpoibInterface iface, ByteBuffer ipPacket);
}
