package org.jrdma.hw.rxe.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.jrdma.hw.rxe.PacketPool;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;

/**
 * The send side of one {@link NettyWire} channel (one bound address). A packet leaves by the first of these that
 * applies:
 * <ol>
 * <li>inside the event loop's read batch (the event loop reads: {@code recvThread} off): written to the channel,
 * flushed once when the batch ends;
 * <li>nothing of the channel waits in the event loop ({@link #loopIdle}), epoll, {@code direct} on: from the
 * calling thread, a sendmmsg of one ({@link #sendOne}, allocates nothing) or sendto(2);
 * <li>otherwise (NIO, a full socket buffer, an error, packets already queued): queued and written in batches by one
 * task on the event loop ({@link #run}; {@code batch} off: one writeAndFlush per packet).
 * </ol>
 * A corked pass's packets ({@link Cork}) come here as one run per channel ({@link #sendRun}): one sendmmsg with runs
 * of equal-size packets as GSO datagrams, gathered payloads as iovecs of their own.
 */
final class ChannelTx implements Runnable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");
    /** Per thread: where a heap packet (tests only) is copied for {@link #sendDirect}, which needs direct memory. */
    private static final ThreadLocal<java.nio.ByteBuffer> DIRECT_BUF =
            ThreadLocal.withInitial(() -> java.nio.ByteBuffer.allocateDirect(NettyWire.MAX_DATAGRAM));
    final Channel ch;
    /** The epoll channel's socket (null: NIO, or not reachable). */
    final io.netty.channel.unix.Socket socket;
    private final NettyWire wire;
    /** The UDP port sent to. */
    private final int port;
    /** {@link RxeNetConfig#batch}. */
    private final boolean batch;
    /** Packets may leave by sendmmsg from the sending thread ({@link NettyWire#isMmsg}). */
    private final boolean mmsg;
    /** Runs of packets may leave as GSO datagrams ({@link NettyWire#isGso}). */
    private final boolean gso;
    private final java.util.Queue<DatagramPacket> q = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicBoolean scheduled = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean txClosed;

    /** The epoll channel's socket, for sendto(2) from any thread (null: NIO, or not reachable, or direct off). */
    private final io.netty.channel.unix.Socket direct;

    ChannelTx(NettyWire wire, Channel ch, int port, RxeNetConfig config) {
        this.wire = wire;
        this.ch = ch;
        this.port = port;
        this.batch = config.batch();
        this.mmsg = wire.isMmsg();
        this.gso = wire.isGso();
        this.socket = SockOpts.socketOf(ch);
        this.direct = config.direct() ? socket : null;
        this.ipv4 = !(((InetSocketAddress) ch.localAddress()).getAddress() instanceof Inet6Address);
        this.ipv6 = socket != null && EpollDgram.AVAILABLE && EpollDgram.ipv6(socket);
    }

    /** IPv4 channel: GSO segments get counting IP IDs, which the ICRC covers. */
    private final boolean ipv4;
    /** The socket is AF_INET6 (for Netty's sendmmsg). */
    private final boolean ipv6;

    /**
     * Sends {@code packet} to {@code to}: written inside the event loop's read batch, or by sendto(2) from
     * this thread, or queued for the event loop. The DatagramPacket (and its address) that Netty's write
     * path needs is only made for the latter two; the direct path allocates nothing.
     */
    void send(ByteBuf packet, InetAddress to) {
        if (!inReadBatch() && direct != null && loopIdle() && sendDirect(packet, to)) {
            return;
        }
        offer(new DatagramPacket(packet, new InetSocketAddress(to, port)));
    }

    /** On the event loop inside a read batch, with nothing of this channel queued before. */
    private boolean inReadBatch() {
        return wire.reading && q.isEmpty() && !scheduled.get() && ch.eventLoop().inEventLoop();
    }

    /**
     * sendto(2) on the channel's socket from the calling thread (a posting thread, the engine): no
     * hand-off to the event loop, which on an 8-byte round trip costs more than the send itself. The
     * socket is the channel's own (bound to 4791, IP_PMTUDISC_DO), so the packet is the same on the
     * wire. Only when nothing is queued, so packets keep their order; a full socket buffer (EAGAIN)
     * or an error falls back to the event loop, which waits for writability and reports errors.
     */
    private boolean sendDirect(ByteBuf b, InetAddress to) {
        int len = b.readableBytes();
        if (txClosed) {
            return false;
        }
        try {
            int n;
            if (b.hasMemoryAddress()) { // the device's packets: pooled direct, sent from where they are
                EpollDgram.Batch bt = mmsg ? EpollDgram.batch() : null;
                if (bt != null && bt.idle()) {
                    return sendOne(bt, b, to);
                }
                // no sendmmsg, or this thread's batch is being filled (not by the current callers; kept safe):
                // sendto, which allocates the address arrays
                n = direct.sendToAddress(b.memoryAddress(), b.readerIndex(), b.writerIndex(), to, port);
            } else {
                java.nio.ByteBuffer buf = DIRECT_BUF.get();
                if (len > buf.capacity()) {
                    return false;
                }
                buf.clear();
                // read through a leak-tracking wrapper's buffer: a paranoid leak detector records a stack
                // trace per access; the packet is still released through the wrapper below
                ByteBuf raw = b.unwrap() != null ? b.unwrap() : b;
                raw.getBytes(b.readerIndex(), buf.limit(len));
                n = direct.sendTo(buf, 0, len, to, port);
            }
            if (n != len) {
                return false;
            }
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
        b.release();
        return true;
    }

    /**
     * One datagram by sendmmsg through this thread's idle batch: its slot keeps the recipient as long as the
     * destination stays the same, so nothing is allocated per datagram. False (nothing sent, {@code b} still
     * the caller's) on EAGAIN or an error, as for sendto.
     */
    private boolean sendOne(EpollDgram.Batch bt, ByteBuf b, InetAddress to) {
        try {
            bt.begin(bt.address(to, port), 0);
            bt.add(b);
            bt.end();
            if (bt.send(socket, ipv6) != 1) {
                return false;
            }
            wire.counters.inc(RxeNetCounter.SENDMMSGS);
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        } finally {
            bt.clear();
        }
        b.release();
        return true;
    }

    /**
     * The event loop's ways: written in its read batch, or queued for {@link #run}. {@link #send} has
     * tried sendto(2) already; a SegmentedDatagramPacket only goes through the event loop.
     */
    private void offer(DatagramPacket p) {
        if (inReadBatch()) {
            // answering from inside a read (an ACK, a reply posted by a completion handler): written
            // now, flushed once when the read batch ends (Rx.channelReadComplete), with sendmmsg
            // when there is more than one
            ch.write(p, ch.voidPromise());
            wire.written(this);
            return;
        }
        if (!batch) {
            ch.writeAndFlush(p, ch.voidPromise());
            return;
        }
        q.offer(p);
        if (txClosed) {
            drop();
            return;
        }
        if (scheduled.compareAndSet(false, true)) {
            try {
                ch.eventLoop().execute(this);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                drop();
            }
        }
    }

    /**
     * Nothing of this channel is on its way through the event loop: not queued, not being drained by
     * {@link #run}, and not written to the channel but still unsent (a write made inside a read batch is
     * flushed only when the batch ends; a flush that met a full socket buffer waits for writability).
     * Only then may a packet take the {@link #sendDirect} path: packets of one QP must reach the peer in
     * the order they were sent, and one that overtakes the earlier packets of its QP is a PSN gap to the
     * responder (a sequence NAK, then go-back-N over the whole window). The outbound buffer's pending
     * byte count is volatile; it grows in {@code ch.write} on the event loop before that thread lets go
     * of the QP whose packet it writes, and shrinks only once the kernel has taken the datagram.
     */
    private boolean loopIdle() {
        if (!q.isEmpty() || scheduled.get()) {
            return false;
        }
        io.netty.channel.ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        return out == null || out.totalPendingWriteBytes() == 0;
    }

    @Override
    public void run() {
        // scheduled stays set until the queue is drained and flushed: no sendDirect slips in between a
        // packet polled here and its write
        do {
            if (txClosed || !ch.isActive()) {
                drop();
                scheduled.set(false);
                return;
            }
            DatagramPacket p;
            int n = 0;
            while ((p = q.poll()) != null) {
                ch.write(p, ch.voidPromise()); // failures: released by Netty, reported to exceptionCaught
                if (++n == 256) {
                    ch.flush();
                    n = 0;
                }
            }
            if (n > 0) {
                ch.flush();
            }
            scheduled.set(false);
        } while (!q.isEmpty() && scheduled.compareAndSet(false, true));
    }

    /** Cleared when a GSO datagram failed on this channel: its packets leave one by one from then on. */
    private volatile boolean gsoOk = true;

    /**
     * Sends {@code run[0..n)} (this channel's packets of one cork, in order): runs of equal-size packets to
     * one destination (the last of a run may be shorter) become one GSO datagram each, at most
     * {@link EpollDgram#MAX_SEGMENTS} and {@link EpollDgram#MAX_PAYLOAD} bytes; all of it leaves by sendmmsg
     * from this thread when nothing of the channel is on its way through the event loop, else (and whatever
     * the kernel did not take) through the event loop queue, in order, GSO datagrams as
     * {@link io.netty.channel.unix.SegmentedDatagramPacket}.
     *
     * <p>IPv4: the kernel gives the segments of a datagram sent with IP ID 0 the IDs 0, 1, 2, ... and the
     * ICRC covers the ID, so segment k's ICRC is changed to the one for ID k
     * ({@link org.jrdma.hw.rxe.wire.IcrcIpv4Span#idDelta}): a Linux rxe peer checks it exactly.
     */
    void sendRun(HeldPackets<ChannelTx> run, Cork c) {
        int n = run.size();
        if (!mmsg || socket == null || txClosed || n == 1 && !run.gathered(0)) {
            // one packet (a round trip's): as without a cork (a sendmmsg of one, see sendDirect)
            for (int i = 0; i < n; i++) {
                send(run.whole(i), run.to(i));
            }
            return;
        }
        // without GSO (switched off, or refused on this channel) one packet per datagram, still one sendmmsg
        boolean segments = gso && gsoOk;
        EpollDgram.Batch bt = c.batch();
        int i = 0;
        while (i < n) {
            ByteBuf b = run.packet(i);
            if (!b.hasMemoryAddress()) { // not a device packet (tests): after what is batched, on its own
                sendBatch(bt, run, c);
                send(run.whole(i), run.to(i));
                i++;
                continue;
            }
            int len = run.length(i);
            InetAddress to = run.to(i);
            int max = segments ? Math.min(EpollDgram.MAX_SEGMENTS, EpollDgram.MAX_PAYLOAD / Math.max(len, 1)) : 1;
            int k = 1;
            // held ACKs taken along by a pass (acksWithPass) never share a GSO datagram with its packets: the
            // answer and the ACK as one GSO datagram made the chained RC pingpong slower still (median 39-45 us
            // against 30-34). A run of held ACKs to one peer is still one GSO datagram
            boolean ack = run.ack(i);
            while (i + k < n && k < max) {
                int ql = run.length(i + k);
                ByteBuf q = run.packet(i + k);
                if (ql > len || ql == 0 || !q.hasMemoryAddress() || !run.to(i + k).equals(to)
                        || run.ack(i + k) != ack) {
                    break;
                }
                k++;
                if (ql < len) {
                    break; // a shorter packet ends a GSO datagram
                }
            }
            if (!bt.begin(c.socketAddress(to, port), k > 1 ? len : 0)) {
                sendBatch(bt, run, c);
                continue;
            }
            for (int j = 0; j < k; j++) {
                ByteBuf q = run.packet(i + j);
                if (j > 0 && ipv4) {
                    patchId(q, run.length(i + j), j, c);
                }
                if (run.gathered(i + j)) { // headers, the payload where it lies, pad and ICRC
                    int ri = q.readerIndex();
                    int h = run.hdrLen(i + j);
                    bt.add(q, ri, h);
                    bt.add(run.payloadAddress(i + j), run.payloadLen(i + j));
                    bt.add(q, ri + h, q.readableBytes() - h);
                } else {
                    bt.add(q);
                }
            }
            bt.end();
            int m = bt.count() - 1;
            c.first[m] = i;
            c.count[m] = k;
            c.seg[m] = k > 1 ? len : 0;
            i += k;
        }
        sendBatch(bt, run, c);
    }

    /**
     * Changes the ICRC of a packet ({@code len} bytes, of which {@code q} holds the last 4) that leaves as
     * segment {@code id} of a GSO datagram (IP ID = id).
     */
    private void patchId(ByteBuf q, int len, int id, Cork c) {
        int ri = q.readerIndex();
        int in = q.readableBytes();
        org.jrdma.hw.rxe.wire.Icrc.store(q, ri, in,
                org.jrdma.hw.rxe.wire.Icrc.stored(q, ri, in) ^ c.delta(id, len));
    }

    /**
     * Sends the batch's datagrams (sendmmsg, or the event loop for what cannot go at once) and clears it. What
     * does not leave by this sendmmsg is joined into whole packets now ({@link HeldPackets#whole}).
     */
    private void sendBatch(EpollDgram.Batch bt, HeldPackets<ChannelTx> run, Cork c) {
        int m = bt.count();
        if (m == 0) {
            return;
        }
        int done = 0;
        boolean inLoopRead = wire.reading && ch.eventLoop().inEventLoop();
        if (!inLoopRead && !txClosed && loopIdle()) {
            try {
                done = bt.send(socket, ipv6);
                if (done > 0) {
                    wire.counters.inc(RxeNetCounter.SENDMMSGS);
                }
            } catch (java.io.IOException | RuntimeException e) {
                if (c.seg[0] > 0) { // the GSO datagram itself was refused: no GSO on this channel
                    gsoOk = false;
                    LOG.log(System.Logger.Level.WARNING, () -> "rxe: UDP GSO failed on " + ch + " (" + e
                            + "); sending one packet per datagram");
                }
                done = 0;
            }
        }
        bt.clear();
        for (int d = 0; d < m; d++) {
            int f = c.first[d];
            int k = c.count[d];
            if (d < done) {
                int g = 0;
                for (int j = 0; j < k; j++) {
                    g += run.gathered(f + j) ? 1 : 0;
                    run.packet(f + j).release();
                    run.take(f + j);
                }
                if (k > 1) {
                    wire.counters.inc(RxeNetCounter.GSO_DATAGRAMS);
                    wire.counters.add(RxeNetCounter.GSO_SEGMENTS, k);
                }
                if (g > 0) {
                    wire.counters.add(RxeNetCounter.GATHERED, g);
                }
            } else if (k == 1) {
                send(run.whole(f), run.to(f));
                run.take(f);
            } else if (!gsoOk) { // back to ID 0 and one packet each
                for (int j = 0; j < k; j++) {
                    if (j > 0 && ipv4) {
                        patchId(run.packet(f + j), run.length(f + j), j, c);
                    }
                    send(run.whole(f + j), run.to(f + j));
                    run.take(f + j);
                }
            } else {
                InetAddress to = run.to(f);
                io.netty.buffer.CompositeByteBuf all = PacketPool.ALLOC.compositeDirectBuffer(k);
                for (int j = 0; j < k; j++) {
                    all.addComponent(true, run.whole(f + j));
                    run.take(f + j);
                }
                offer(new io.netty.channel.unix.SegmentedDatagramPacket(all, c.seg[d],
                        new InetSocketAddress(to, port)));
                wire.counters.inc(RxeNetCounter.GSO_DATAGRAMS);
                wire.counters.add(RxeNetCounter.GSO_SEGMENTS, k);
            }
        }
    }

    /** Releases whatever is queued. */
    void drop() {
        DatagramPacket p;
        while ((p = q.poll()) != null) {
            wire.counters.inc(RxeNetCounter.UNROUTABLE);
            p.release();
        }
    }

    void close() {
        txClosed = true;
        ch.close().syncUninterruptibly();
        drop();
    }
}

