package org.jrdma.hw.rxe;

import java.net.InetAddress;

import io.netty.buffer.ByteBuf;

/**
 * What an {@link RxeDevice} sends through: a UDP/IP transport to port 4791 ({@code NettyWire}; for tests
 * {@link InMemoryWire}). The device's transmit step ({@link RxeXmit}) hands over complete UDP payloads (BTH .. ICRC,
 * the ICRC computed for {@code src}, {@code dst}, {@code srcPort} and IPv4 ID 0), each once; the wire only moves
 * them as datagrams (adds UDP/IP) and calls {@link RxeDevice#rcv} at the destination, never re-entrantly from
 * {@code send}.
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
     * Sends a pure ACK or NAK ({@code RC_ACKNOWLEDGE}, the responder's), which may leave later than packets sent
     * after it (IBA allows it: a later response acknowledges everything before it). NettyWire's receive thread holds
     * such ACKs until the datagram in hand is handled, so the answer a completion handler posts leaves first.
     * Default: {@link #send}.
     */
    default void sendAck(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        send(from, src, dst, srcPort, packet);
    }

    /**
     * Whether this wire sends gathered packets ({@link #sendGathered}) without joining them first: the requester
     * then leaves large payloads in the memory region ({@link RxeGather}). Default: false.
     */
    default boolean gathers() {
        return false;
    }

    /**
     * Sends one packet in parts: {@code head}'s first {@code hdrLen} readable bytes (BTH and extension headers),
     * then {@code payloadLen} bytes of {@code payload} from {@code payloadIndex} (a memory region's direct buffer),
     * then the rest of {@code head} (pad and ICRC, computed over all three). Takes ownership of {@code head}. The
     * payload is read before the sending thread's {@link #uncork} returns (or before this returns when not
     * corked), while the QP's roles still run: nothing of the region is referenced afterwards. Default: joins the
     * parts ({@link RxeGather#join}) and {@link #send}s the packet.
     */
    default void sendGathered(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf head, int hdrLen,
            java.nio.ByteBuffer payload, int payloadIndex, int payloadLen) {
        send(from, src, dst, srcPort, RxeGather.join(head, hdrLen, payload, payloadIndex, payloadLen));
    }

    /**
     * The UDP source port every packet of this wire leaves from, or 0: the per-QP flow port the device chooses. The
     * ICRC covers the UDP header, so the device's transmit step ({@link RxeXmit}) computes it with this port; it asks
     * once. Default 0 (InMemoryWire); a socket wire bound to 4791 returns 4791.
     */
    default int sourcePort() {
        return 0;
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

    /**
     * Subscribes {@code dev} to IP multicast group {@code group}: packets sent to it reach {@code dev} (rxe's
     * {@code rxe_mcast_add}, {@code dev_mc_add} on the netdev). The device calls it when the first QP attaches to the
     * group's MGID, under its multicast table's lock. Default: nothing (only unicast reaches the device).
     */
    default void joinGroup(RxeDevice dev, InetAddress group) {
    }

    /** Undoes {@link #joinGroup} (the last QP detached: {@code rxe_mcast_delete}). Default: nothing. */
    default void leaveGroup(RxeDevice dev, InetAddress group) {
    }
}
