package org.jrdma.ulp.iser.conn;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;

/**
 * A connection's send queue. Callers on any thread {@link #submit}; work requests are posted in submission
 * order (an RDMA WRITE before the SCSI Response SEND that follows it), chained into one {@code postSend} per
 * batch, by whichever thread finds the queue idle ("work in progress" counter: no thread ever waits for another,
 * and none holds a lock across a post). A full send queue or no free send buffer leaves the rest queued until
 * completions free them: a WR is never refused nor lost. Every WR is signalled but those the caller marked
 * {@link WrOp#unsignaled} (a data-in RDMA WRITE its response SEND follows, an initiator's SCSI Command: isert and
 * ib_iser signal only what they must), of which one in {@link #signalEvery} is signalled anyway so that the slots
 * and send buffers of a run of them come back; a completion completes its WR and every WR posted before it, in
 * posting order. At most {@code signalEvery - 1} unsignalled WRs wait for a later completion, holding fewer send
 * buffers than there are.
 */
final class SendQueue {
    private final QueuePair qp;
    private final SendBuffers buffers;
    private final IserCounters counters;
    private final Consumer<String> onPostError;
    private final int depth;
    /** The op of each posted WR, at {@code wrId % depth}. */
    private final AtomicReferenceArray<WrOp> inflight;
    private final SendWr[] wrs;
    private final Sge[][] rdmaSgl;
    private final ConcurrentLinkedQueue<WrOp> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicInteger outstanding = new AtomicInteger();
    /** Written only by the draining thread (one at a time, ordered by {@link #wip}). */
    private long postSeq;
    /** Unsignalled WRs in a row since the last signalled one (the draining thread's). */
    private int unsignaledRun;
    private final int signalEvery;
    /** The wrId of the oldest posted WR not yet completed; only the completion thread moves it. */
    private long completedSeq;
    private volatile String closed;

    SendQueue(QueuePair qp, SendBuffers buffers, int depth, IserCounters counters, Consumer<String> onPostError) {
        this.qp = qp;
        this.buffers = buffers;
        this.depth = depth;
        this.counters = counters;
        this.onPostError = onPostError;
        signalEvery = Math.max(1, Math.min(depth, buffers.count()) / 4);
        inflight = new AtomicReferenceArray<>(depth);
        wrs = new SendWr[depth];
        rdmaSgl = new Sge[depth][];
        for (int i = 0; i < depth; i++) {
            wrs[i] = new SendWr();
            rdmaSgl[i] = new Sge[] {new Sge()};
        }
    }

    void submit(WrOp op) {
        if (closed != null) {
            op.fail("WR_FLUSH_ERR (" + closed + ")");
            return;
        }
        if (!pending.isEmpty() || outstanding.get() >= depth) {
            counters.inc(IserCounter.SQ_QUEUED);
        }
        pending.add(op);
        drain();
    }

    /** Posted WRs whose completion has not arrived. */
    int outstanding() {
        return outstanding.get();
    }

    /** Posts what is queued while slots and send buffers last; fails it all once closed. */
    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        drainOwned();
    }

    /**
     * Holds posting back while the completion thread handles one poll batch (the block layer's blk_plug): what it
     * and other threads submit meanwhile is queued and goes out as one chained post at {@link #unplug}, one
     * doorbell (and one transmit batch of the device) instead of one per WR. False when another thread is
     * draining right now: it posts what is queued, there is nothing to hold.
     */
    boolean plug() {
        return wip.compareAndSet(0, 1);
    }

    /** Ends a {@link #plug}: posts everything queued since. */
    void unplug() {
        drainOwned();
    }

    /** The drain loop of the thread that took {@link #wip} from 0. */
    private void drainOwned() {
        int missed = 1;
        do {
            SendWr head = null;
            SendWr tail = null;
            WrOp op;
            while ((op = pending.peek()) != null) {
                if (closed != null) {
                    pending.poll();
                    op.fail("WR_FLUSH_ERR (" + closed + ")");
                    continue;
                }
                SendWr wr;
                try {
                    wr = prepare(op);
                } catch (RuntimeException e) {
                    pending.poll();
                    op.done.completeExceptionally(new IserTransportException("cannot encode " + op + ": " + e, e));
                    continue;
                }
                if (wr == null) {
                    break;
                }
                pending.poll();
                if (head == null) {
                    head = wr;
                } else {
                    tail.next(wr);
                }
                tail = wr;
            }
            if (head != null) {
                post(head);
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    /** Takes a slot (and a send buffer for a SEND) for {@code op} and fills its WR; null if none is free. */
    private SendWr prepare(WrOp op) {
        int slot = (int) (postSeq % depth);
        if (outstanding.get() >= depth || inflight.get(slot) != null) {
            return null;
        }
        SendWr wr = wrs[slot].wrId(postSeq).next(null).opcode(op.opcode);
        if (op.isSend()) {
            SendBuffers.Buffer b = buffers.take();
            if (b == null) {
                return null;
            }
            try {
                b.bytes().clear();
                op.pdu.encode(b.bytes());
            } catch (RuntimeException e) {
                buffers.give(b);
                throw e;
            }
            b.sgl()[0].length(b.bytes().writerIndex());
            op.sendBuffer = b;
            wr.sgList(b.sgl()).invalidateRkey(op.invalidateRkey).remote(0, 0);
        } else {
            Sge[] sgl = rdmaSgl[slot];
            sgl[0].addr(op.local.va() + op.offset).length(op.length).lkey(op.local.lkey());
            wr.sgList(sgl).invalidateRkey(0).remote(op.va, op.rkey);
        }
        boolean signaled = !op.unsignaled || ++unsignaledRun >= signalEvery;
        if (signaled) {
            unsignaledRun = 0;
        }
        wr.sendFlags(signaled ? SendFlags.SIGNALED : 0);
        op.seq = postSeq;
        inflight.set(slot, op);
        outstanding.incrementAndGet();
        postSeq++;
        return wr;
    }

    private void post(SendWr head) {
        counters.inc(IserCounter.SQ_POSTS);
        try {
            qp.postSend(head);
        } catch (VerbsException e) {
            Object bad = e instanceof PostException p ? p.badWr() : head;
            boolean unposted = false;
            for (SendWr wr = head; wr != null; wr = wr.next()) {
                unposted |= wr == bad;
                if (unposted) {
                    release(wr.wrId(), "post_send " + e.errno());
                }
            }
            onPostError.accept("ib_post_send failed: " + e.getMessage());
        }
    }

    /**
     * A completion of this queue (wrId without the receive tag): completes its stage, and first those of the
     * unsignalled WRs posted before it (they succeeded: a WR in error has a completion of its own, which came first).
     */
    void complete(WorkCompletion wc) {
        long id = wc.wrId();
        for (; completedSeq < id; completedSeq++) {
            WrOp earlier = inflight.get((int) (completedSeq % depth));
            if (earlier != null && earlier.seq == completedSeq) {
                count(earlier);
                release(completedSeq, null);
            }
        }
        completedSeq = Math.max(completedSeq, id + 1);
        WrOp op = inflight.get((int) (id % depth));
        if (op == null) {
            return;
        }
        if (wc.status() == WcStatus.SUCCESS) {
            count(op);
        }
        release(id, wc.status() == WcStatus.SUCCESS ? null : wc.status().name());
    }

    private void count(WrOp op) {
        switch (op.opcode) {
            case SEND -> counters.inc(IserCounter.SENDS);
            case SEND_WITH_INV -> counters.inc(IserCounter.SENDS_WITH_INV);
            case RDMA_READ -> {
                counters.inc(IserCounter.RDMA_READS);
                counters.add(IserCounter.READ_BYTES, op.length);
            }
            case RDMA_WRITE -> {
                counters.inc(IserCounter.RDMA_WRITES);
                counters.add(IserCounter.WRITE_BYTES, op.length);
            }
            default -> {
            }
        }
    }

    /** Frees the slot of {@code wrId} and completes its stage (failed with {@code status} unless null). */
    private void release(long wrId, String status) {
        WrOp op = inflight.getAndSet((int) (wrId % depth), null);
        if (op == null) {
            return;
        }
        outstanding.decrementAndGet();
        if (op.sendBuffer != null) {
            buffers.give(op.sendBuffer);
            op.sendBuffer = null;
        }
        if (status == null) {
            op.done.complete(null);
        } else {
            op.fail(status);
        }
    }

    /** From now on nothing is posted; what is queued fails. Posted WRs complete as their flushes arrive. */
    void close(String reason) {
        closed = reason;
        drain();
    }

    /** After the QP is destroyed: whatever never completed fails with WR_FLUSH_ERR. */
    void failOutstanding() {
        for (int i = 0; i < depth; i++) {
            WrOp op = inflight.get(i);
            if (op != null) {
                release(i, "WR_FLUSH_ERR (" + closed + ")");
            }
        }
        drain();
    }

    /** For a PDU too large for a send buffer: the stage fails, the connection stays. */
    boolean fits(WrOp op) {
        return !op.isSend() || op.pdu.wireLength() <= buffers.length();
    }
}
