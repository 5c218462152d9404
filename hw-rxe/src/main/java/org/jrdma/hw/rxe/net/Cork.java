package org.jrdma.hw.rxe.net;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.jrdma.hw.rxe.wire.IcrcIpv4Span;

import io.netty.buffer.ByteBuf;

/**
 * The GSO cork: what one thread sends between {@link NettyWire#cork} and {@link NettyWire#uncork}, held back in the
 * order sent, and its scratch for sending it: the datagrams of one sendmmsg ({@link EpollDgram.Batch}) and, per
 * datagram, which packets it holds. {@link #flush} hands each channel's packets to that channel in their order
 * ({@link ChannelTx#sendRun}). One per thread; only that thread touches it.
 */
final class Cork {
    /** Packets held before a flush even inside a pass. */
    static final int LIMIT = 512;
    /** Nesting depth of cork calls; packets are held while it is above 0. */
    int depth;
    /** A pass's packets, held without an object each. */
    final HeldPackets<ChannelTx> held = new HeldPackets<>(64);
    private EpollDgram.Batch batch;
    private final IcrcIpv4Span.IdDeltas deltas = new IcrcIpv4Span.IdDeltas();
    /** Per datagram of the batch: first packet (index into run), packet count, segment size (0: one packet). */
    final int[] first = new int[EpollDgram.MAX_MSGS];
    final int[] count = new int[EpollDgram.MAX_MSGS];
    final int[] seg = new int[EpollDgram.MAX_MSGS];
    /** One channel's packets of {@link #held}, in order, while they are sent. */
    private final HeldPackets<ChannelTx> run = new HeldPackets<>(64);

    /** Holds a whole packet; flushes at {@link #LIMIT}. */
    void hold(ChannelTx tx, ByteBuf packet, InetAddress to) {
        held.add(tx, packet, to);
        flushIfFull();
    }

    /** Holds a gathered packet ({@link HeldPackets#add(Object, ByteBuf, InetAddress, int, java.nio.ByteBuffer, int, int)}). */
    void holdGathered(ChannelTx tx, ByteBuf head, InetAddress to, int hdrLen, java.nio.ByteBuffer payload, int index,
            int len) {
        held.add(tx, head, to, hdrLen, payload, index, len);
        flushIfFull();
    }

    private void flushIfFull() {
        if (held.size() >= LIMIT) {
            flush();
        }
    }

    /** Appends {@code from}'s packets (ACKs the receive thread held) and empties it. */
    void take(HeldPackets<ChannelTx> from) {
        for (int i = 0; i < from.size(); i++) {
            held.add(from.sender(i), from.packet(i), from.to(i), true);
        }
        from.clear();
    }

    /** A destination as Netty's sendmmsg wants it (cached per thread: {@link EpollDgram.Batch#address}). */
    InetSocketAddress socketAddress(InetAddress to, int port) {
        return batch().address(to, port);
    }

    EpollDgram.Batch batch() {
        if (batch == null) {
            batch = EpollDgram.batch();
        }
        return batch;
    }

    /** The ICRC change of a packet of {@code length} bytes sent as GSO segment {@code id} (IP ID = id). */
    int delta(int id, int length) {
        return deltas.of(id, length);
    }

    /** Sends everything held, each channel's packets in their order. */
    void flush() {
        int total = held.size();
        try {
            for (int i = 0; i < total; i++) {
                ChannelTx tx = held.sender(i);
                if (tx == null) {
                    continue;
                }
                for (int j = i; j < total; j++) {
                    if (held.sender(j) == tx) {
                        run.move(held, j);
                    }
                }
                try {
                    tx.sendRun(run, this);
                } finally {
                    run.clear();
                }
            }
        } finally {
            held.clear();
        }
    }
}
