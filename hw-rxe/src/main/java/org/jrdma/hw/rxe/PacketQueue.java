package org.jrdma.hw.rxe;

import java.net.InetAddress;

import io.netty.buffer.ByteBuf;

/**
 * A QP's queue of received packets (requests for the responder, or responses for the completer) with the
 * addresses each came from and to ({@code ip_hdr(skb)} stays with the skb in rxe). A ring of three arrays under
 * a lock nobody holds for long: adding and polling allocate nothing (a linked queue made a node and a record
 * per packet). The ring is made on the first packet and grows while packets wait; {@link #poll} keeps the
 * addresses of the packet it hands out for {@link #src()} / {@link #dst()} (read by whoever runs the QP's roles,
 * under its {@code exec} lock).
 */
final class PacketQueue {
    private static final int FIRST = 4;
    /**
     * Packets one queue holds at most (64 MiB of 4 KiB packets): what a peer sends faster than the QP consumes
     * waits up to here, then is dropped and counted, so a flood to a live QP cannot grow the heap without bound.
     * Far above what a window of legitimate traffic keeps waiting (128 READs of 1 MiB in flight are 32768 packets
     * sent, but the completer consumes them as they come).
     */
    static final int LIMIT = 16384;
    private ByteBuf[] bufs;
    private InetAddress[] srcs;
    private InetAddress[] dsts;
    private int head;
    private int size;
    /** {@link #size}, for {@link #isEmpty} from any thread without the lock. */
    private volatile int count;
    private InetAddress src;
    private InetAddress dst;

    /** Queues {@code b}; false (not taken) when {@link #LIMIT} packets are waiting already. */
    synchronized boolean add(ByteBuf b, InetAddress from, InetAddress to) {
        if (size >= LIMIT) {
            return false;
        }
        if (bufs == null) {
            bufs = new ByteBuf[FIRST];
            srcs = new InetAddress[FIRST];
            dsts = new InetAddress[FIRST];
        } else if (size == bufs.length) {
            grow();
        }
        int i = (head + size) & (bufs.length - 1);
        bufs[i] = b;
        srcs[i] = from;
        dsts[i] = to;
        count = ++size;
        return true;
    }

    /** The next packet (its addresses kept for {@link #src()} and {@link #dst()}), or null. */
    synchronized ByteBuf poll() {
        if (size == 0) {
            return null;
        }
        ByteBuf b = bufs[head];
        src = srcs[head];
        dst = dsts[head];
        bufs[head] = null;
        srcs[head] = null;
        dsts[head] = null;
        head = (head + 1) & (bufs.length - 1);
        count = --size;
        return b;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Where the packet last polled came from. */
    synchronized InetAddress src() {
        return src;
    }

    /** Where the packet last polled was sent to (our address). */
    synchronized InetAddress dst() {
        return dst;
    }

    private void grow() {
        int n = bufs.length;
        ByteBuf[] b = new ByteBuf[n * 2];
        InetAddress[] s = new InetAddress[n * 2];
        InetAddress[] d = new InetAddress[n * 2];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (n - 1);
            b[k] = bufs[i];
            s[k] = srcs[i];
            d[k] = dsts[i];
        }
        bufs = b;
        srcs = s;
        dsts = d;
        head = 0;
    }
}
