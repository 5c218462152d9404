package org.jrdma.ulp.iser.conn;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;

/**
 * An {@link IserTransport} in memory, for session tests without verbs: PDUs are encoded and decoded (so the
 * codecs run), each side's PDUs arrive in order on its own thread, RDMA READ/WRITE copy between heap buffers
 * found by STag with bounds checked as an RNIC would (a bad STag or range fails the stage with "remote access
 * error" and takes the connection down). One instance is one fabric: listeners and connects meet by address.
 */
public final class MemoryTransport implements IserTransport, AutoCloseable {
    private static final int MAX_RECV_DATA_SEGMENT = 8192;
    private final Map<InetSocketAddress, Consumer<IserConnection>> listeners = new ConcurrentHashMap<>();
    private final Map<Integer, Buffer> stags = new ConcurrentHashMap<>();
    private final AtomicInteger nextStag = new AtomicInteger(0x1000);
    /** Initiator ports 40000..64999, round and round (a fuzz run makes hundreds of thousands of connections). */
    private final AtomicInteger nextPort = new AtomicInteger(40000);
    private final AtomicInteger allocations = new AtomicInteger();
    /** Whether the initiator side lets the target invalidate its STags (ib_iser with fast registration). */
    private final boolean remoteInvalidate;
    private final AtomicInteger registrations = new AtomicInteger();
    private final ExecutorService delivery = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "memory-iser");
        t.setDaemon(true);
        return t;
    });

    /** Initiators accept SEND_WITH_INV: every pool buffer is its own STag, as ib_iser's fast registrations. */
    public MemoryTransport() {
        this(true);
    }

    /** {@code remoteInvalidate} false: ISER_SEND_W_INV_NOT_SUP, as RdmaIserTransport's slab pool needs. */
    public MemoryTransport(boolean remoteInvalidate) {
        this.remoteInvalidate = remoteInvalidate;
    }

    @Override
    public IserListener listen(InetSocketAddress portal, Consumer<IserConnection> accepted) {
        if (listeners.putIfAbsent(portal, accepted) != null) {
            throw new IserTransportException("EADDRINUSE: " + portal);
        }
        return new IserListener() {
            @Override public InetSocketAddress address() { return portal; }
            @Override public void close() { listeners.remove(portal, accepted); }
        };
    }

    @Override
    public CompletionStage<IserConnection> connect(InetSocketAddress portal, IserConnectionHandler handler) {
        Consumer<IserConnection> accept = listeners.get(portal);
        if (accept == null) {
            return CompletableFuture.failedFuture(new IserTransportException("REJECTED: no listener on " + portal));
        }
        InetSocketAddress local = new InetSocketAddress(portal.getAddress(), 40000 + Math.floorMod(nextPort.getAndIncrement() - 40000, 25000));
        End initiator = new End(local, portal, true);
        End target = new End(portal, local, false);
        initiator.peer = target;
        target.peer = initiator;
        initiator.handler(handler);
        accept.accept(target);
        return CompletableFuture.completedFuture(initiator);
    }

    /** Registered buffers currently handed out (a leak check for tests). */
    public int buffersInUse() {
        return stags.size();
    }

    /** Caller memory registered and not yet deregistered. */
    public int registeredInUse() {
        return (int) stags.values().stream().filter(b -> b.registered).count();
    }

    /** Pool buffers handed out to connecting (initiator) sides so far (a task that copies takes one). */
    public int allocations() {
        return allocations.get();
    }

    /** Caller memory registered so far ({@link IserBufferPool#register}). */
    public int registrations() {
        return registrations.get();
    }

    /**
     * Delivers {@code send} to the peer of {@code from} (a connection of this transport) as the bytes of one received
     * SEND, as they are: the receive side decodes them as from the wire (the fuzz tests' way in).
     */
    public void deliverRaw(IserConnection from, byte[] send) {
        End to = ((End) from).peer;
        ByteBuf wire = Unpooled.wrappedBuffer(send.clone());
        try {
            to.inbox.execute(() -> to.receive(wire));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // that side closed: a real SEND would flush
        }
    }

    /**
     * Waits until the inbox of {@code conn} (or of its peer) has handled everything queued before this call: every
     * PDU delivered to that side has been through its handler; if that side is closed, until its inbox has ended.
     */
    public void drain(IserConnection conn, boolean peer) throws Exception {
        End e = peer ? ((End) conn).peer : (End) conn;
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            e.inbox.execute(() -> done.complete(null));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed: what was queued before the close still runs (the disconnect last)
            e.inbox.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            return;
        }
        done.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        delivery.shutdownNow();
    }

    private final class Buffer implements IserBuffer {
        final ByteBuffer bytes;
        final int stag = nextStag.getAndAdd(0x100);
        final AtomicBoolean closed = new AtomicBoolean();

        final boolean registered;

        Buffer(int length) {
            this(ByteBuffer.allocate(length), false);
        }

        Buffer(ByteBuffer memory, boolean registered) {
            this.registered = registered;
            bytes = memory.duplicate().clear();
            stags.put(stag, this);
        }

        @Override public ByteBuffer buffer() { return bytes.duplicate().clear(); }
        @Override public int capacity() { return bytes.capacity(); }
        @Override public int lkey() { return stag; }
        @Override public int rkey() { return stag; }
        @Override public long va() { return 0x7f00_0000_0000L + ((long) stag << 24); }
        @Override public void close() {
            if (closed.compareAndSet(false, true)) {
                stags.remove(stag);
            }
        }
    }

    private final class End implements IserConnection {
        final InetSocketAddress local;
        final InetSocketAddress remote;
        final ExecutorService inbox = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "memory-iser-conn");
            t.setDaemon(true);
            return t;
        });
        final AtomicBoolean closed = new AtomicBoolean();
        volatile End peer;
        volatile IserConnectionHandler handler;

        /** The connecting side: its pool buffers and registrations are what {@link #allocations} counts. */
        final boolean initiatorSide;

        End(InetSocketAddress local, InetSocketAddress remote, boolean initiatorSide) {
            this.initiatorSide = initiatorSide;
            this.local = local;
            this.remote = remote;
        }

        @Override
        public CompletionStage<Void> send(IserPdu pdu) {
            if (closed.get()) {
                return CompletableFuture.failedFuture(new IserTransportException("WR_FLUSH_ERR: connection closed"));
            }
            ByteBuf wire = Unpooled.buffer(pdu.wireLength());
            pdu.encode(wire);
            End to = peer;
            to.inbox.execute(() -> to.receive(wire));
            return CompletableFuture.completedFuture(null);
        }

        private void receive(ByteBuf wire) {
            IserConnectionHandler h = handler;
            // A PDU sent before the disconnect is delivered (on RC its SEND completed, so it is in the
            // receiver's CQ ahead of the DREQ): a Logout Response or failed Login Response then the close.
            if (h == null) {
                return;
            }
            try {
                h.onPdu(this, IserPdu.decode(wire, MAX_RECV_DATA_SEGMENT));
            } catch (IscsiProtocolException e) {
                h.onMalformed(this, e);
            }
        }

        @Override
        public CompletionStage<Void> sendWithInvalidate(IserPdu pdu, int rkey) {
            Buffer b = stags.get(rkey);
            if (b != null) {
                b.close();
            }
            return send(pdu);
        }

        @Override
        public CompletionStage<Void> rdmaRead(IserBuffer localBuf, int offset, int length, int stag, long va) {
            return copy(stag, va, length, remoteBytes -> localBuf.buffer().position(offset).put(remoteBytes));
        }

        @Override
        public CompletionStage<Void> rdmaWrite(IserBuffer localBuf, int offset, int length, int stag, long va) {
            ByteBuffer src = localBuf.buffer().position(offset).limit(offset + length);
            return copy(stag, va, length, remoteBytes -> remoteBytes.put(src));
        }

        /** Bounds-checks (stag, va, length) as an RNIC would, then hands the remote range to {@code op}. */
        private CompletionStage<Void> copy(int stag, long va, int length, Consumer<ByteBuffer> op) {
            Buffer remoteBuf = stags.get(stag);
            long off = remoteBuf == null ? -1 : va - remoteBuf.va();
            if (closed.get() || remoteBuf == null || off < 0 || off + length > remoteBuf.capacity()) {
                IserTransportException e = new IserTransportException(
                        "REM_ACCESS_ERR: STag 0x" + Integer.toHexString(stag) + " VA 0x" + Long.toHexString(va)
                        + " length " + length);
                close();
                return CompletableFuture.failedFuture(e);
            }
            op.accept(remoteBuf.buffer().position((int) off).limit((int) off + length).slice());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public IserBufferPool buffers() {
            return new IserBufferPool() {
                @Override public IserBuffer allocate(int length) {
                    if (length > maxLength()) {
                        throw new IserTransportException("buffer of " + length + " bytes: pool serves " + maxLength());
                    }
                    if (initiatorSide) {
                        allocations.incrementAndGet();
                    }
                    return new Buffer(length);
                }
                @Override public IserBuffer register(ByteBuffer memory) {
                    registrations.incrementAndGet();
                    return new Buffer(memory, true);
                }
                @Override public int maxLength() { return 16 << 20; }
            };
        }

        @Override public int maxRecvDataSegmentLength() { return MAX_RECV_DATA_SEGMENT; }
        @Override public boolean peerAcceptsSendWithInvalidate() { return remoteInvalidate; }
        @Override public InetSocketAddress localAddress() { return local; }
        @Override public InetSocketAddress remoteAddress() { return remote; }
        @Override public void handler(IserConnectionHandler h) { handler = h; }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                // the peer first: once either side has seen the disconnect, the other's is queued too (the fuzz
                // test takes "the target dropped the session" as "the initiator will see the disconnect")
                End p = peer;
                if (p != null) {
                    p.close();
                }
                IserConnectionHandler h = handler;
                inbox.execute(() -> {
                    if (h != null) {
                        h.onDisconnected(this, "closed");
                    }
                });
                inbox.shutdown();
            }
        }
    }
}
