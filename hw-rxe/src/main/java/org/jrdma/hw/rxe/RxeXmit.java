package org.jrdma.hw.rxe;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxeWire;
import org.jrdma.ib.core.Gid;

import io.netty.buffer.ByteBuf;

/**
 * The transmit step ({@code rxe_net.c}: {@code rxe_init_packet}'s buffer, {@code rxe_xmit_packet} -> prepare ->
 * ICRC -> send). The requester and responder build a packet's headers and payload in a buffer from {@link #packet}
 * (or a gathered packet's head from {@link #head}) and hand it here once: {@link #send} fills the UDP/IP facts the
 * ICRC covers (the UDP source port the wire really sends from, IPv4 ID 0 and DF, destination port 4791), computes
 * and stores the ICRC, counts the packet and gives it to the {@link org.jrdma.hw.rxe.RxeWire} in one call, which
 * from then on only moves the datagram. One per thread that runs a QP's roles (the ICRC scratch is not shared);
 * nothing is allocated per packet but the pooled buffer.
 */
final class RxeXmit {
    private final RxeDevice dev;
    private final org.jrdma.hw.rxe.RxeWire wire;
    private final Icrc icrc = new Icrc();
    /** {@link org.jrdma.hw.rxe.RxeWire#sourcePort}, asked once: 0 sends from the QP's flow port. */
    private final int wirePort;

    RxeXmit(RxeDevice dev) {
        this.dev = dev;
        this.wire = dev.wire;
        this.wirePort = wire.sourcePort();
    }

    /**
     * A packet buffer with room for headers, payload, pad and ICRC; writerIndex at the end. Direct: the epoll
     * transport writes direct buffers as they are (a heap buffer is copied into a new direct one per packet).
     */
    ByteBuf packet(RxeOpcode op, int payload) {
        return allocZeroedFrom(RxeWire.udpPayloadLength(op, payload), op.length() + payload);
    }

    /**
     * The head of a gathered packet ({@link RxeGather}): room for the headers, then the pad (zeroed) and the ICRC;
     * writerIndex at the end. The payload is not in it.
     */
    ByteBuf head(RxeOpcode op, int payload) {
        return allocZeroedFrom(RxeWire.udpPayloadLength(op, payload) - payload, op.length());
    }

    /** {@code len} direct bytes, writerIndex at the end, zeroed from {@code from} on (pad and ICRC). */
    private static ByteBuf allocZeroedFrom(int len, int from) {
        ByteBuf b = PacketPool.buffer(len);
        b.writerIndex(len);
        b.setZero(from, len - from);
        return b;
    }

    /**
     * {@code rxe_xmit_packet}: the UDP source port ({@code flowPort} as the wire sends it), the ICRC, then the wire.
     * Takes ownership of {@code b}.
     */
    void send(InetAddress src, InetAddress dst, int flowPort, ByteBuf b) {
        send(src, dst, flowPort, b, false);
    }

    /** {@link #send} of a pure ACK or NAK, which the wire may hold back a little ({@link org.jrdma.hw.rxe.RxeWire#sendAck}). */
    void sendAck(InetAddress src, InetAddress dst, int flowPort, ByteBuf b) {
        send(src, dst, flowPort, b, true);
    }

    private void send(InetAddress src, InetAddress dst, int flowPort, ByteBuf b, boolean ack) {
        int srcPort = wirePort != 0 ? wirePort : flowPort;
        int len = b.writerIndex();
        Icrc.store(b, 0, len, icrc(icrc, b, 0, len, src, dst, srcPort));
        if (!leaving(b)) {
            return;
        }
        if (ack) {
            wire.sendAck(dev, src, dst, srcPort, b);
        } else {
            wire.send(dev, src, dst, srcPort, b);
        }
    }

    /**
     * {@link #send} of a gathered packet ({@link RxeGather}): {@code head} holds the headers ({@code hdrLen} bytes),
     * then room for pad and ICRC; the payload stays in the memory region until the wire sends it.
     */
    void sendGathered(InetAddress src, InetAddress dst, int flowPort, ByteBuf head, int hdrLen, RxeGather g) {
        int srcPort = wirePort != 0 ? wirePort : flowPort;
        int headLen = head.writerIndex();
        int len = headLen + g.length;
        int c = src instanceof Inet4Address && dst instanceof Inet4Address
                ? icrc.ipv4(RxeDevice.v4(src), RxeDevice.v4(dst), 0, Icrc.IPV4_DF, srcPort, RxeWire.ROCE_V2_UDP_DPORT,
                        head, 0, hdrLen, g.buffer, g.index, g.length, len)
                : icrc.ipv6(Gid.of(src).raw(), Gid.of(dst).raw(), srcPort, RxeWire.ROCE_V2_UDP_DPORT,
                        head, 0, hdrLen, g.buffer, g.index, g.length, len);
        Icrc.store(head, 0, headLen, c);
        if (leaving(head)) {
            wire.sendGathered(dev, src, dst, srcPort, head, hdrLen, g.buffer, g.index, g.length);
        }
    }

    /** Counts a packet about to leave; false, the packet released and counted as send_err, while the port is down. */
    private boolean leaving(ByteBuf b) {
        dev.counters.inc(RxeCounter.SENT_PKTS);
        if (!dev.isUp()) {
            b.release();
            dev.counters.inc(RxeCounter.SEND_ERR);
            return false;
        }
        return true;
    }

    /**
     * The ICRC of {@code len} bytes of {@code b} from {@code off} (BTH .. ICRC) sent from {@code src}:{@code srcPort}
     * to {@code dst}:4791, IPv4 with ID 0 and DF ({@code rxe_icrc_hdr}).
     */
    static int icrc(Icrc icrc, ByteBuf b, int off, int len, InetAddress src, InetAddress dst, int srcPort) {
        if (src instanceof Inet4Address && dst instanceof Inet4Address) {
            return icrc.ipv4(RxeDevice.v4(src), RxeDevice.v4(dst), 0, Icrc.IPV4_DF, srcPort, RxeWire.ROCE_V2_UDP_DPORT,
                    b, off, len);
        }
        return icrc.ipv6(Gid.of(src).raw(), Gid.of(dst).raw(), srcPort, RxeWire.ROCE_V2_UDP_DPORT, b, off, len);
    }
}
