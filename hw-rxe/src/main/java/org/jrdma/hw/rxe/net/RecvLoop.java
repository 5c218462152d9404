package org.jrdma.hw.rxe.net;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.PacketPool;

import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.DatagramSocketAddress;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;

/**
 * The receive side of an epoll {@link NettyWire}: one thread per wire that reads its sockets itself, as the
 * thread of a blocking UDP receive does, instead of the Netty event loop ({@code rxe_udp_encap_recv}'s place).
 *
 * <p><b>Why.</b> The event loop pays per wakeup {@code epoll_wait}, a {@code getsockopt} Netty issues on every
 * read, and {@code recvmmsg}; then the packet's answer waits for the end of the read batch. An 8-byte RC round
 * trip through it cost three times a blocking UDP pingpong (bench/BOUNDS.md). Here a wakeup is
 * {@code epoll_wait} on this thread's own epoll set (the sockets and an eventfd) and one {@code recvfrom} per
 * datagram straight into a pooled direct buffer; the device runs the QP's roles on this thread
 * ({@code RxeDevice.kick}), so an answer posted by a completion handler leaves by {@code sendto} before the
 * next datagram is read.
 *
 * <p><b>ACKs last.</b> Pure ACKs ({@code RC_ACKNOWLEDGE}, NAKs included: what the responder gives
 * {@code RxeWire.sendAck}) that the roles send while this thread handles a datagram are held back and sent after
 * it, so the request a handler posts in answer goes out first:
 * on a round trip the peer wakes for the answer, not for the ACK in front of it. ACKs of one QP keep their
 * order; a held ACK may reach the peer after a later response of its QP, which IBA allows (a later response
 * acknowledges everything before it; the completer drops the older ACK). They are flushed after every
 * {@value #ACK_BATCH} datagrams and whenever the sockets are drained, by one sendmmsg per channel (with
 * {@code -Djrdma.rxe.net.acksWithPass=true} a pass of a QP's roles that sends takes them along in its sendmmsg,
 * after its packets: measured slower on the round trip, so off).
 *
 * <p>The Netty channels stay: bound, configured, and used for the sends that cannot go out by
 * {@code sendto} at once; their auto-read is off, so the event loop never reads them.
 */
final class RecvLoop implements Runnable {
    /** Datagrams handled before held ACKs are sent even if more are waiting. */
    static final int ACK_BATCH = 16;
    /** Datagrams up to this size are copied out of the receive buffer into one of their own size. */
    static final int SMALL = 1024;
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");
    private static final Constructor<?> EVENT_ARRAY;
    /** {@code Native.epollWait(FileDescriptor, EpollEventArray, int)} as (FileDescriptor, Object, int)int: no boxing. */
    private static final java.lang.invoke.MethodHandle EPOLL_WAIT;

    static {
        Constructor<?> c = null;
        java.lang.invoke.MethodHandle m = null;
        try {
            Class<?> arr = Class.forName("io.netty.channel.epoll.EpollEventArray", false, Native.class.getClassLoader());
            c = arr.getDeclaredConstructor(int.class);
            c.setAccessible(true);
            Method wait = Native.class.getDeclaredMethod("epollWait", FileDescriptor.class, arr, int.class);
            wait.setAccessible(true);
            m = java.lang.invoke.MethodHandles.lookup().unreflect(wait).asType(java.lang.invoke.MethodType.methodType(
                    int.class, FileDescriptor.class, Object.class, int.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            c = null;
            m = null;
        }
        EVENT_ARRAY = c;
        EPOLL_WAIT = m;
    }

    /** Whether this Netty has what the loop needs (else the wire reads on its event loop). */
    static boolean available() {
        return EPOLL_WAIT != null;
    }

    /**
     * One socket read by this loop.
     *
     * @param gro the socket has UDP_GRO on: read with recvmsg, cut coalesced buffers into their packets
     * @param ipv6 the socket is AF_INET6 (for Netty's recvmsg)
     */
    record Source(Socket socket, InetAddress local, NettyWire.Receiver rx, boolean gro, boolean ipv6) {
        Source(Socket socket, InetAddress local, NettyWire.Receiver rx) {
            this(socket, local, rx, false, false);
        }
    }

    /** Room a GRO read needs: the largest UDP payload a coalesced buffer can have. */
    static final int GRO_MAX = 65536;
    /** GRO reads go into buffers of this size, one after the other; each packet is a slice of one. */
    static final int GRO_CHUNK = 4 * GRO_MAX;

    private final NettyWire wire;
    private final boolean busyPoll;
    private final FileDescriptor epoll;
    private final FileDescriptor wakeFd;
    private final Object events;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean stop;
    /** Only this thread touches it. */
    private Source[] sources = new Source[0];
    /** ACKs held back while a datagram is handled (this thread only; arrays, so holding allocates nothing). */
    private final HeldPackets<ChannelTx> held = new HeldPackets<>(ACK_BATCH);
    private ByteBuf spare;
    /** GRO: the buffer reads go into, from {@link #groOff} on (this thread only). */
    private ByteBuf groBuf;
    private int groOff;
    private EpollDgram.Receiver groRx;
    /** Receive buffers kept for reuse. */
    static final int GRO_RING = 8;
    private final ByteBuf[] groRing = new ByteBuf[GRO_RING];
    private int groRingN;
    /** GRO reads while every ring buffer is in use (see {@link #nextGroBuf}); its packets are copies. */
    private ByteBuf bounce;

    RecvLoop(NettyWire wire, String name, boolean busyPoll) {
        this.wire = wire;
        this.busyPoll = busyPoll;
        try {
            this.epoll = Native.newEpollCreate();
            this.wakeFd = Native.newEventFd();
            // edge-triggered: every write is one wakeup, and the counter never needs reading
            Native.epollCtlAdd(epoll.intValue(), wakeFd.intValue(), Native.EPOLLIN | Native.EPOLLET);
            this.events = EVENT_ARRAY.newInstance(8);
        } catch (IOException | ReflectiveOperationException e) {
            throw new IllegalStateException("rxe: cannot set up the receive thread's epoll: " + e, e);
        }
        // a FastThreadLocalThread, as Netty's event loops are: Netty 4.2 gives a thread-local cache of the packet
        // pool only to those (useCacheForAllThreads is false); without it every packet this thread allocates
        // and frees takes the arena's lock and a new buffer object
        this.thread = new io.netty.util.concurrent.FastThreadLocalThread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Starts reading {@code s} (returns once this thread reads it). */
    void add(Source s) {
        call(() -> {
            try {
                Native.epollCtlAdd(epoll.intValue(), s.socket().intValue(), Native.EPOLLIN);
            } catch (IOException e) {
                throw new IllegalStateException("rxe: epoll_ctl ADD: " + e, e);
            }
            Source[] n = java.util.Arrays.copyOf(sources, sources.length + 1);
            n[sources.length] = s;
            sources = n;
        });
    }

    /** Stops reading {@code socket}; once it returns the socket may be closed. */
    void remove(Socket socket) {
        call(() -> {
            try {
                Native.epollCtlDel(epoll.intValue(), socket.intValue());
            } catch (IOException e) {
                // already gone from the set (closed)
            }
            sources = java.util.Arrays.stream(sources).filter(x -> x.socket() != socket).toArray(Source[]::new);
        });
    }

    /** Holds an ACK back until the datagram in hand is handled (called on this thread only). */
    void hold(ChannelTx tx, ByteBuf packet, InetAddress to) {
        held.add(tx, packet, to);
    }

    /**
     * The ACKs held now (this thread only): with {@code acksWithPass} the wire takes them into the sendmmsg of a pass
     * that sends something while a datagram is handled, after the pass's packets ({@code NettyWire.uncork}).
     */
    HeldPackets<ChannelTx> held() {
        return held;
    }

    private void call(Runnable r) {
        if (inLoop() || !thread.isAlive()) {
            r.run();
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                r.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        wake();
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("rxe: receive thread " + thread.getName() + " did not answer in 5 s");
        }
    }

    private void wake() {
        Native.eventFdWrite(wakeFd.intValue(), 1L);
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
                if (readAll() == 0 && !stop && tasks.isEmpty()) {
                    waitForInput();
                }
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "rxe: receive thread " + thread.getName() + " ended", t);
        } finally {
            sendHeld();
            Runnable t;
            while ((t = tasks.poll()) != null) {
                t.run(); // a remove() after close: nothing left to read
            }
            if (spare != null) {
                spare.release();
                spare = null;
            }
            for (int i = 0; i < groRingN; i++) {
                groRing[i].release();
                groRing[i] = null;
            }
            groRingN = 0;
            if (bounce != null) {
                bounce.release();
                bounce = null;
            }
            groBuf = null;
            if (groRx != null) {
                groRx.release();
            }
        }
    }

    /** Reads every source until it has nothing more (at most a batch per source per call). */
    private int readAll() {
        int total = 0;
        Source[] ss = sources;
        for (Source s : ss) {
            for (int i = 0; i < 64; i++) {
                int got = s.gro() ? readGro(s) : readOne(s) ? 1 : 0;
                if (got == 0) {
                    break;
                }
                total += got;
                if (held.size() >= ACK_BATCH) {
                    sendHeld();
                }
            }
        }
        sendHeld();
        return total;
    }

    private boolean readOne(Source s) {
        ByteBuf b = spare != null ? spare : PacketPool.ALLOC.directBuffer(NettyWire.MAX_DATAGRAM, NettyWire.MAX_DATAGRAM);
        spare = null;
        DatagramSocketAddress from;
        try {
            from = s.socket().recvFromAddress(b.memoryAddress(), 0, b.capacity());
        } catch (IOException | RuntimeException e) {
            spare = b;
            if (s.socket().isInputShutdown() || !s.socket().isOpen()) {
                return false;
            }
            wire.counters.inc(RxeNetCounter.ERRORS);
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: recvfrom on " + s.local() + ": " + e);
            return false;
        }
        if (from == null) { // EAGAIN: drained
            spare = b;
            return false;
        }
        int n = from.receivedAmount();
        if (n <= SMALL) { // an ACK or a small request: not worth a 9 KiB buffer while it waits for its QP
            ByteBuf small = PacketPool.buffer(n);
            small.writeBytes(b, 0, n);
            spare = b;
            b = small;
        } else {
            b.writerIndex(n);
        }
        wire.counters.inc(RxeNetCounter.RECEIVED);
        s.rx().rcv(b, from.getAddress(), s.local(), from.getPort());
        return true;
    }

    /**
     * Moves on to a receive buffer of which no packet is in use any more (its count back to this loop's own
     * reference), one of at most {@value #GRO_RING} kept for good. If all are in use (packets wait in QP queues for
     * an engine), reads go into {@link #bounce} and every packet is copied out of it into a packet slot: a new
     * buffer of a pool chunk's size each time made the pool create and destroy a chunk (a zeroed direct allocation,
     * and the chunk's heap bookkeeping; likely the 200 KB per 1 MiB WRITE one polling benchmark run showed).
     */
    private void nextGroBuf() {
        ByteBuf old = groBuf;
        groBuf = null;
        groOff = 0;
        for (int i = 0; i < groRingN; i++) {
            if (groRing[i] != old && groRing[i].refCnt() == 1) {
                groBuf = groRing[i];
                break;
            }
        }
        if (groBuf == null && groRingN < GRO_RING) {
            groBuf = PacketPool.ALLOC.directBuffer(GRO_CHUNK, GRO_CHUNK);
            groRing[groRingN++] = groBuf;
        }
        if (groBuf == null) {
            if (bounce == null) {
                bounce = PacketPool.ALLOC.directBuffer(GRO_CHUNK, GRO_CHUNK);
            }
            groBuf = bounce; // its packets are copied out: free again as soon as they are handed over
            wire.counters.inc(RxeNetCounter.GRO_BOUNCED);
        }
    }

    /**
     * One recvmsg on a UDP_GRO socket into {@link #groBuf}: a plain datagram, or a coalesced run of packets
     * (a GSO datagram the kernel did not cut, or datagrams GRO merged) with its segment size, each packet
     * then handed over as a slice of the buffer (small ones copied out, as in {@link #readOne}).
     *
     * @return the packets handed over (0: nothing to read)
     */
    private int readGro(Source s) {
        if (groRx == null) {
            groRx = new EpollDgram.Receiver();
        }
        if (groBuf == null || groBuf.capacity() - groOff < GRO_MAX) {
            nextGroBuf();
        }
        int n;
        InetAddress from;
        try {
            n = groRx.read(s.socket(), s.ipv6(), groBuf, groOff, GRO_MAX);
            if (n <= 0) {
                return 0; // EAGAIN: drained
            }
            from = groRx.sender();
        } catch (IOException | RuntimeException e) {
            if (s.socket().isInputShutdown() || !s.socket().isOpen()) {
                return 0;
            }
            wire.counters.inc(RxeNetCounter.ERRORS);
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: recvmsg on " + s.local() + ": " + e);
            return 0;
        }
        int port = groRx.port;
        int seg = groRx.segmentSize;
        if (seg <= 0 || seg >= n) {
            seg = n;
        } else {
            wire.counters.inc(RxeNetCounter.GRO_READS);
        }
        int base = groOff;
        if (n > SMALL || seg < n) {
            groOff += (n + 63) & ~63;
        }
        int count = 0;
        for (int o = 0; o < n; o += seg) {
            int len = Math.min(seg, n - o);
            ByteBuf b;
            if (len <= SMALL || groBuf == bounce) {
                b = PacketPool.buffer(len);
                b.writeBytes(groBuf, base + o, len);
            } else {
                b = groBuf.retainedSlice(base + o, len);
            }
            wire.counters.inc(RxeNetCounter.RECEIVED);
            s.rx().rcv(b, from, s.local(), port);
            count++;
        }
        return count;
    }

    /** Sends the held ACKs: one sendmmsg per channel where the wire can ({@link NettyWire#sendHeld}). */
    private void sendHeld() {
        wire.sendHeld(held);
    }

    private void waitForInput() throws IOException {
        if (busyPoll) {
            Thread.onSpinWait();
            return;
        }
        try {
            int ready = (int) EPOLL_WAIT.invokeExact(epoll, events, 1000);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ends the thread (waiting for it) and frees its epoll set. Sources must have been removed. */
    void close() {
        stop = true;
        if (thread.isAlive()) {
            wake();
            if (!inLoop()) {
                try {
                    thread.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (!thread.isAlive()) {
            try {
                wakeFd.close();
                epoll.close();
            } catch (IOException e) {
                // nothing to do
            }
            try {
                Method free = events.getClass().getDeclaredMethod("free");
                free.setAccessible(true);
                free.invoke(events);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // leaks a few bytes of native memory
            }
        }
    }
}
