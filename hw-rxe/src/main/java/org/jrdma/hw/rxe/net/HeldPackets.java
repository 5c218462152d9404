package org.jrdma.hw.rxe.net;

import java.net.InetAddress;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;

/**
 * Packets one thread holds back before sending them, each with its destination and the channel that sends
 * it: the receive thread's ACKs ({@link RecvLoop}) and the packets of a corked pass ({@code NettyWire.Cork}).
 * Three growable arrays, so holding a packet allocates nothing.
 *
 * @param <T> the sending side
 */
final class HeldPackets<T> {
    private Object[] senders;
    private ByteBuf[] packets;
    private InetAddress[] tos;
    private int size;

    HeldPackets(int capacity) {
        senders = new Object[capacity];
        packets = new ByteBuf[capacity];
        tos = new InetAddress[capacity];
    }

    void add(T sender, ByteBuf packet, InetAddress to) {
        if (size == packets.length) {
            senders = Arrays.copyOf(senders, size * 2);
            packets = Arrays.copyOf(packets, size * 2);
            tos = Arrays.copyOf(tos, size * 2);
        }
        senders[size] = sender;
        packets[size] = packet;
        tos[size++] = to;
    }

    int size() {
        return size;
    }

    /** The sender of packet {@code i}, or null once {@link #take taken}. */
    @SuppressWarnings("unchecked")
    T sender(int i) {
        return (T) senders[i];
    }

    ByteBuf packet(int i) {
        return packets[i];
    }

    InetAddress to(int i) {
        return tos[i];
    }

    /** Empties slot {@code i} (its packet is on its way). */
    void take(int i) {
        senders[i] = null;
        packets[i] = null;
        tos[i] = null;
    }

    /** Empties every slot. */
    void clear() {
        Arrays.fill(senders, 0, size, null);
        Arrays.fill(packets, 0, size, null);
        Arrays.fill(tos, 0, size, null);
        size = 0;
    }
}
