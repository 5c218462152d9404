package org.jrdma.hw.rxe;

import java.net.InetAddress;

import io.netty.buffer.ByteBuf;

/**
 * What an {@link RxeDevice} sends through: a UDP/IP transport to port 4791 (later Netty; for tests
 * {@link InMemoryWire}). The device hands over complete UDP payloads (BTH .. ICRC, the ICRC computed for
 * {@code src}, {@code dst}, {@code srcPort} and IPv4 ID 0); the wire adds UDP/IP and calls
 * {@link RxeDevice#rcv} at the destination, never re-entrantly from {@code send}.
 */
public interface RxeWire {
    /**
     * Sends one packet. Takes ownership of {@code packet} (the wire releases it).
     *
     * @param from the sending device
     * @param src the source address (the sending port's GID as an address)
     * @param dst the destination address
     * @param srcPort the UDP source port
     */
    void send(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet);

    /**
     * The UDP source port the wire really sends from when the engine asks for {@code requested} (the per-QP
     * flow port). The ICRC covers the UDP header, so the device computes it with this port. Default: the
     * requested port (InMemoryWire); a socket wire bound to 4791 returns 4791.
     */
    default int udpSourcePort(int requested) {
        return requested;
    }

    /**
     * What this thread sends from now until the matching {@link #uncork} may be held back and sent together
     * (NettyWire: runs of packets as UDP GSO datagrams, one sendmmsg). Calls nest; the device corks around one
     * pass of a QP's roles with the QP's exec lock held, so a QP's packets still leave in order. Default: nothing.
     */
    default void cork() {
    }

    /** Sends what this thread held back since {@link #cork} (all of it, also when nested). */
    default void uncork() {
    }
}
