package org.jrdma.ulp.iser.conn;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.IserPdu;

/**
 * One iSER connection over an RDMA CM id and its verbs objects ({@link IbResources}). One completion thread per
 * connection ("iser-cq-..."): it polls the CQ, completes stages, decodes received SENDs and hands them to the
 * handler, re-posts receives, and at the end tears the connection down. Per connection rather than per device
 * because a handler that blocks then stalls only its own connection, completions of one connection stay in
 * order on one thread, and closing is simple (the thread that drained the flushes frees what it polled); the
 * cost, a thread per connection, is fine for iSCSI's few connections per session.
 *
 * <p>Going down ({@link #down}): from {@link #close}, the peer's DREQ (DISCONNECTED), a completion in error or
 * device removal. The send queue stops posting, {@code rdma_disconnect} moves the QP to ERR, the completion
 * thread collects the flushes (bounded), destroys the QP, fails what is left with WR_FLUSH_ERR, calls
 * {@code onDisconnected} once, then frees MRs, CQ, PD and the CM id.
 */
public final class RdmaIserConnection implements IserConnection {
    private static final System.Logger LOG = System.getLogger(RdmaIserConnection.class.getName());
    private static final java.util.concurrent.atomic.AtomicInteger SERIAL = new java.util.concurrent.atomic.AtomicInteger();
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(2);

    enum State { CONNECTING, UP, CLOSING, DOWN }

    final RdmaCmId id;
    private final IserConnectionConfig cfg;
    private final Runnable onGone;
    private final Thread poller;
    private final IserCounters counters = new IserCounters();
    private IbResources res;
    private SendQueue sq;
    private volatile IserConnectionHandler handler;
    private volatile IserCmHeader peer = new IserCmHeader(0);
    private volatile boolean peerInvalidate;
    private volatile int lastInvalidatedRkey;
    private volatile State state = State.CONNECTING;
    private volatile String reason;
    /** Counted down once the connection is DOWN (torn down by the completion thread, or freed early). */
    private final java.util.concurrent.CountDownLatch gone = new java.util.concurrent.CountDownLatch(1);
    /** Set by the transport while connecting: what ESTABLISHED and a failed connect do. */
    volatile Setup setup;

    /** The two ends of a connection being set up: the listener's or the connector's. */
    interface Setup {
        /** ESTABLISHED (the event's private data: the REP's, for the initiator). */
        void established(RdmaIserConnection c, byte[] privateData);

        /** The connect failed before ESTABLISHED (the connection is already freed). */
        void failed(RdmaIserConnection c, String why);
    }

    RdmaIserConnection(RdmaCmId id, IserConnectionConfig cfg, IserConnectionHandler handler, Runnable onGone) {
        this.id = id;
        this.cfg = cfg;
        this.handler = handler;
        this.onGone = onGone;
        this.poller = new Thread(this::poll, "iser-cq-" + SERIAL.incrementAndGet());
        poller.setDaemon(true);
        id.context(this);
    }

    /** The verbs side, on the id's device (target: at CONNECT_REQUEST; initiator: at ROUTE_RESOLVED). */
    void createResources() {
        res = new IbResources(id, cfg, poller);
        sq = new SendQueue(res.qp, res.sendBuffers, cfg.sendWr(), counters, this::down);
    }

    /** What the peer's {@code iser_cm_hdr} said; {@code invalidate}: SEND_WITH_INV may be used towards it. */
    void peer(IserCmHeader hdr, boolean invalidate) {
        peer = hdr;
        peerInvalidate = invalidate;
    }

    IbResources resources() {
        return res;
    }

    /** ESTABLISHED: UP, then the completion thread starts (after the caller set the handler). */
    synchronized boolean established() {
        if (state != State.CONNECTING) {
            return false;
        }
        state = State.UP;
        return true;
    }

    /** The connect timer: only a connection still connecting is taken down. */
    void connectTimedOut(String why) {
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
        }
        down(why);
    }

    void startPoller() {
        poller.start();
    }

    // ------------------------------------------------------------------ IserConnection

    @Override
    public CompletionStage<Void> send(IserPdu pdu) {
        return post(WrOp.send(pdu, false, 0));
    }

    @Override
    public CompletionStage<Void> sendWithInvalidate(IserPdu pdu, int rkey) {
        return post(WrOp.send(pdu, peerInvalidate, rkey));
    }

    @Override
    public CompletionStage<Void> rdmaRead(IserBuffer local, int offset, int length, int stag, long va) {
        return post(rdma(WrOpcode.RDMA_READ, local, offset, length, stag, va));
    }

    @Override
    public CompletionStage<Void> rdmaWrite(IserBuffer local, int offset, int length, int stag, long va) {
        return post(rdma(WrOpcode.RDMA_WRITE, local, offset, length, stag, va));
    }

    /** Signalled one in a few (SendQueue): the SCSI Response tells the initiator its command arrived. */
    @Override
    public CompletionStage<Void> sendUnsignaled(IserPdu pdu) {
        WrOp op = WrOp.send(pdu, false, 0);
        op.unsignaled = true;
        return post(op);
    }

    /** Unsignalled: the SEND that follows completes it (one CQE and one wake-up fewer per READ command). */
    @Override
    public CompletionStage<Void> rdmaWriteBeforeSend(IserBuffer local, int offset, int length, int stag, long va) {
        WrOp op = rdma(WrOpcode.RDMA_WRITE, local, offset, length, stag, va);
        op.unsignaled = true;
        return post(op);
    }

    private static WrOp rdma(WrOpcode op, IserBuffer local, int offset, int length, int stag, long va) {
        if (offset < 0 || length < 0 || (long) offset + length > local.capacity()) {
            throw new IllegalArgumentException(op + " of " + length + " bytes at " + offset + " of a "
                    + local.capacity() + "-byte buffer");
        }
        return WrOp.rdma(op, local, offset, length, stag, va);
    }

    private CompletionStage<Void> post(WrOp op) {
        State s = state;
        if (s != State.UP) {
            op.fail("WR_FLUSH_ERR (connection " + (s == State.CONNECTING ? "not established" : "closed: " + reason) + ")");
        } else if (!sq.fits(op)) {
            op.done.completeExceptionally(new IserTransportException("PDU of " + op.pdu.wireLength()
                    + " bytes is larger than a send buffer (" + cfg.sendBufferLength() + ")"));
        } else {
            sq.submit(op);
        }
        return op.done;
    }

    @Override
    public IserBufferPool buffers() {
        return res.pool;
    }

    @Override
    public int maxRecvDataSegmentLength() {
        return cfg.maxRecvDataSegmentLength();
    }

    @Override
    public boolean peerAcceptsSendWithInvalidate() {
        return peerInvalidate;
    }

    /** The peer's {@code iser_cm_hdr} as received in the REQ (target) or REP (initiator). */
    public IserCmHeader peerCmHeader() {
        return peer;
    }

    @Override
    public InetSocketAddress localAddress() {
        return id.localAddr();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return id.remoteAddr();
    }

    @Override
    public void handler(IserConnectionHandler h) {
        handler = h;
    }

    /** This connection's counters ({@code iscsiadm -m session -s} style statistics). */
    public Map<IserCounter, Long> counters() {
        return counters.snapshot();
    }

    /** The rkey the last received SEND_WITH_INV invalidated (Linux iser checks it against the task), or 0. */
    public int lastInvalidatedRkey() {
        return lastInvalidatedRkey;
    }

    @Override
    public void close() {
        down("closed");
    }

    /**
     * Whether the teardown has finished, waiting up to {@code ms} for it (not on the completion thread). It waits
     * for the teardown itself, not for the completion thread: an accepted connection is handed to the listener's
     * callback before its thread starts, so a caller may hold (and close) it while there is no thread to join.
     */
    boolean awaitDown(long ms) {
        if (Thread.currentThread() == poller) {
            return state == State.DOWN;
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        try {
            if (gone.await(ms, TimeUnit.MILLISECONDS)) {
                // and the thread's last instructions after the teardown (join returns at once if it never ran)
                long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                poller.join(Math.max(1, left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return state == State.DOWN;
    }

    boolean isDown() {
        return state == State.DOWN;
    }

    // ------------------------------------------------------------------ going down

    /**
     * Starts taking the connection down (once). Before ESTABLISHED nobody has it yet: freed here. Else the
     * completion thread finishes it.
     */
    void down(String why) {
        boolean early;
        synchronized (this) {
            if (state == State.CLOSING || state == State.DOWN) {
                return;
            }
            reason = why;
            early = state == State.CONNECTING;
            state = early ? State.DOWN : State.CLOSING;
        }
        if (sq != null) {
            sq.close(why);
        }
        IbResources.quietly(id::disconnect);
        if (early) {
            if (res != null) {
                res.free();
            }
            IbResources.quietly(id::close);
            onGone.run();
            gone.countDown();
            Setup su = setup;
            if (su != null) {
                su.failed(this, why);
            }
        } else {
            LockSupport.unpark(poller);
        }
    }

    /** The completion thread. */
    private void poll() {
        WorkCompletion[] wcs = new WorkCompletion[32];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        long deadline = 0;
        while (true) {
            int n = pollOnce(wcs);
            if (n > 0) {
                continue;
            }
            if (state == State.CLOSING) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + DRAIN_NANOS;
                }
                if (sq.outstanding() == 0 && res.recv.posted() <= 0 || now - deadline > 0) {
                    break;
                }
            }
            boolean missed;
            try {
                missed = res.cq.reqNotify(CqNotify.NEXT_COMP, true);
            } catch (RuntimeException e) {
                down("ib_req_notify_cq: " + e.getMessage());
                missed = false;
            }
            if (!missed) {
                LockSupport.parkNanos(this, state == State.UP ? 100_000_000L : 10_000_000L);
            }
        }
        teardown();
    }

    /** One {@code ib_poll_cq} batch, handled; the receives it freed are re-posted together. */
    private int pollOnce(WorkCompletion[] wcs) {
        int n;
        try {
            n = res.cq.poll(wcs);
        } catch (RuntimeException e) {
            down("ib_poll_cq: " + e.getMessage());
            return 0;
        }
        // what the batch's handlers post (responses, data-in WRITEs, next commands) goes out in one chain at the end
        boolean plugged = n > 1 && sq.plug();
        try {
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                if (RecvRing.isRecv(wc.wrId())) {
                    onRecv(wc);
                } else {
                    onSendCompletion(wc);
                }
            }
        } finally {
            if (n > 0) {
                try {
                    res.recv.flush();
                } catch (RuntimeException e) {
                    down("ib_post_recv: " + e.getMessage());
                }
                if (plugged) {
                    sq.unplug();
                } else {
                    sq.drain();
                }
            }
        }
        return n;
    }

    private void onSendCompletion(WorkCompletion wc) {
        WcStatus st = wc.status();
        sq.complete(wc);
        if (st == WcStatus.WR_FLUSH_ERR) {
            counters.inc(IserCounter.FLUSHED);
        } else if (st != WcStatus.SUCCESS) {
            counters.inc(IserCounter.WC_ERRORS);
            down(st.name() + " (send queue completion in error)");
        }
    }

    private void onRecv(WorkCompletion wc) {
        int index = RecvRing.index(wc.wrId());
        if (wc.status() != WcStatus.SUCCESS) {
            res.recv.lost();
            if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                counters.inc(IserCounter.FLUSHED);
            } else {
                counters.inc(IserCounter.WC_ERRORS);
                down(wc.status().name() + " (receive completion in error)");
            }
            return;
        }
        ByteBuf bytes = res.recv.received(index, wc.byteLen());
        counters.inc(IserCounter.RECVS);
        if ((wc.wcFlags() & WcFlags.WITH_INVALIDATE) != 0) {
            counters.inc(IserCounter.RECVS_WITH_INV);
            lastInvalidatedRkey = wc.invalidateRkey();
        }
        deliver(bytes);
        if (state == State.UP) {
            res.recv.repost(index);
        }
    }

    /** Decodes one SEND and hands it on; a handler's exception is counted and logged, never thrown on. */
    private void deliver(ByteBuf bytes) {
        IserConnectionHandler h = handler;
        if (h == null) {
            counters.inc(IserCounter.HANDLER_ERRORS);
            return;
        }
        try {
            IserPdu pdu;
            try {
                pdu = IserPdu.decode(bytes, cfg.maxRecvDataSegmentLength());
            } catch (IscsiProtocolException e) {
                counters.inc(IserCounter.MALFORMED_PDUS);
                h.onMalformed(this, e);
                return;
            }
            h.onPdu(this, pdu);
        } catch (RuntimeException e) {
            counters.inc(IserCounter.HANDLER_ERRORS);
            LOG.log(System.Logger.Level.WARNING, "iser " + this + ": handler failed", e);
        }
    }

    /** On the completion thread, once the flushes are in (or the drain timed out): Linux's release order. */
    private void teardown() {
        res.destroyQp();
        sq.failOutstanding();
        IserConnectionHandler h = handler;
        if (h != null) {
            try {
                h.onDisconnected(this, reason);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "iser " + this + ": onDisconnected failed", e);
            }
        }
        res.free();
        IbResources.quietly(id::close);
        state = State.DOWN;
        onGone.run();
        gone.countDown();
    }

    @Override
    public String toString() {
        return "iser_conn[" + id.localAddr() + " -> " + id.remoteAddr() + " " + state + "]";
    }
}
