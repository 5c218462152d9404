package org.jrdma.hw.rxe.net;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.jrdma.hw.rxe.RxeGather;

import io.netty.buffer.ByteBuf;

/**
 * Packets one thread holds back before sending them, each with its destination and the channel that sends
 * it: the receive thread's ACKs ({@link RecvLoop}) and the packets of a corked pass ({@link Cork}).
 * Growable arrays, so holding a packet allocates nothing.
 *
 * <p>A packet may be gathered ({@link RxeGather}): its buffer then holds the headers (the first {@link #hdrLen}
 * bytes) and the pad and ICRC, and its payload is {@link #payloadLen} bytes of a memory region's buffer. Holding
 * the buffer here keeps the region's memory reachable until the packet is sent.
 *
 * @param <T> the sending side
 */
final class HeldPackets<T> {
    private Object[] senders;
    private ByteBuf[] packets;
    private InetAddress[] tos;
    private ByteBuffer[] payloads;
    private int[] payloadIndex;
    private int[] payloadLen;
    private int[] hdrLen;
    /** Per packet: an ACK the receive thread held, taken into a cork's flush (see {@link #ack}). */
    private boolean[] acks;
    private int size;

    HeldPackets(int capacity) {
        senders = new Object[capacity];
        packets = new ByteBuf[capacity];
        tos = new InetAddress[capacity];
        payloads = new ByteBuffer[capacity];
        payloadIndex = new int[capacity];
        payloadLen = new int[capacity];
        hdrLen = new int[capacity];
        acks = new boolean[capacity];
    }

    void add(T sender, ByteBuf packet, InetAddress to) {
        add(sender, packet, to, 0, null, 0, 0);
    }

    /** Holds a whole packet; {@code ack}: one the receive thread held back ({@link #ack}). */
    void add(T sender, ByteBuf packet, InetAddress to, boolean ack) {
        add(sender, packet, to, 0, null, 0, 0);
        acks[size - 1] = ack;
    }

    /** Holds a gathered packet (or a whole one: {@code payload} null). */
    void add(T sender, ByteBuf head, InetAddress to, int hdrLen, ByteBuffer payload, int index, int len) {
        if (size == packets.length) {
            int n = size * 2;
            senders = Arrays.copyOf(senders, n);
            packets = Arrays.copyOf(packets, n);
            tos = Arrays.copyOf(tos, n);
            payloads = Arrays.copyOf(payloads, n);
            payloadIndex = Arrays.copyOf(payloadIndex, n);
            payloadLen = Arrays.copyOf(payloadLen, n);
            this.hdrLen = Arrays.copyOf(this.hdrLen, n);
            acks = Arrays.copyOf(acks, n);
        }
        acks[size] = false;
        senders[size] = sender;
        packets[size] = head;
        tos[size] = to;
        payloads[size] = payload;
        payloadIndex[size] = index;
        payloadLen[size] = payload == null ? 0 : len;
        this.hdrLen[size++] = hdrLen;
    }

    /** Moves packet {@code i} of {@code from} to the end of this one (and empties it there). */
    void move(HeldPackets<T> from, int i) {
        add(from.sender(i), from.packets[i], from.tos[i], from.hdrLen[i], from.payloads[i], from.payloadIndex[i],
                from.payloadLen[i]);
        acks[size - 1] = from.acks[i];
        from.take(i);
    }

    int size() {
        return size;
    }

    /** The sender of packet {@code i}, or null once {@link #take taken}. */
    @SuppressWarnings("unchecked")
    T sender(int i) {
        return (T) senders[i];
    }

    /** Packet {@code i}'s buffer: the whole packet, or a gathered packet's headers, pad and ICRC. */
    ByteBuf packet(int i) {
        return packets[i];
    }

    InetAddress to(int i) {
        return tos[i];
    }

    /**
     * Whether packet {@code i} is an ACK the receive thread held and a pass's flush took along: it never shares a GSO
     * datagram with the pass's own packets (see {@link ChannelTx#sendRun}).
     */
    boolean ack(int i) {
        return acks[i];
    }

    /** Whether packet {@code i} is gathered (its payload in a memory region). */
    boolean gathered(int i) {
        return payloads[i] != null;
    }

    /** The UDP payload length of packet {@code i}. */
    int length(int i) {
        return packets[i].readableBytes() + payloadLen[i];
    }

    int hdrLen(int i) {
        return hdrLen[i];
    }

    int payloadLen(int i) {
        return payloadLen[i];
    }

    /** The native address of a gathered packet's payload. */
    long payloadAddress(int i) {
        return io.netty.util.internal.PlatformDependent.directBufferAddress(payloads[i]) + payloadIndex[i];
    }

    /** Packet {@code i} as one buffer: a gathered one is joined (copied) into a new packet buffer here and now. */
    ByteBuf whole(int i) {
        if (payloads[i] != null) {
            packets[i] = RxeGather.join(packets[i], hdrLen[i], payloads[i], payloadIndex[i], payloadLen[i]);
            payloads[i] = null;
            payloadLen[i] = 0;
        }
        return packets[i];
    }

    /** Empties slot {@code i} (its packet is on its way). */
    void take(int i) {
        senders[i] = null;
        packets[i] = null;
        tos[i] = null;
        payloads[i] = null;
    }

    /** Empties every slot. */
    void clear() {
        Arrays.fill(senders, 0, size, null);
        Arrays.fill(packets, 0, size, null);
        Arrays.fill(tos, 0, size, null);
        Arrays.fill(payloads, 0, size, null);
        size = 0;
    }
}
