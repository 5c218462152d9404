package org.jrdma.ulp.iser.conn;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;

/**
 * The receive buffers of a connection (ib_iser's {@code rx_descs}, isert's {@code rx_descs}): one registered slab
 * cut into equal buffers, all posted at setup; a buffer is posted again once its PDU was decoded and handed on.
 * Re-posts collect during one poll batch and go in one {@code postRecv}. Only the completion thread calls it,
 * except {@link #postAll} before that thread starts.
 */
final class RecvRing {
    /** Receive wrIds have the top bit set; send wrIds are sequence numbers and never do. */
    static final long RECV_TAG = 1L << 63;

    private final QueuePair qp;
    private final MemoryRegion mr;
    private final ByteBuf[] views;
    private final RecvWr[] wrs;
    private RecvWr batchHead;
    private RecvWr batchTail;
    private int posted;

    RecvRing(ProtectionDomain pd, QueuePair qp, int count, int length) {
        this.qp = qp;
        ByteBuffer slab = ByteBuffer.allocateDirect(count * length);
        mr = pd.regMr(slab, Access.LOCAL_WRITE);
        views = new ByteBuf[count];
        wrs = new RecvWr[count];
        for (int i = 0; i < count; i++) {
            views[i] = Unpooled.wrappedBuffer(slab.duplicate().position(i * length).limit((i + 1) * length).slice());
            wrs[i] = new RecvWr().wrId(RECV_TAG | i).sgList(new Sge(mr.iova() + (long) i * length, length, mr.lkey()));
        }
    }

    static boolean isRecv(long wrId) {
        return (wrId & RECV_TAG) != 0;
    }

    static int index(long wrId) {
        return (int) (wrId & ~RECV_TAG);
    }

    void postAll() {
        for (RecvWr wr : wrs) {
            repost(index(wr.wrId()));
        }
        flush();
    }

    /** The bytes a receive completion filled, readable from 0 to {@code byteLen}. */
    ByteBuf received(int index, int byteLen) {
        posted--;
        return views[index].setIndex(0, Math.min(byteLen, views[index].capacity()));
    }

    /** A flushed or failed receive: its buffer stays unposted. */
    void lost() {
        posted--;
    }

    /** Queues buffer {@code index} to be posted by the next {@link #flush}. */
    void repost(int index) {
        RecvWr wr = wrs[index].next(null);
        if (batchHead == null) {
            batchHead = wr;
        } else {
            batchTail.next(wr);
        }
        batchTail = wr;
        posted++;
    }

    /** Posts the collected buffers in one call. */
    void flush() {
        RecvWr head = batchHead;
        batchHead = null;
        batchTail = null;
        if (head != null) {
            try {
                qp.postRecv(head);
            } catch (RuntimeException e) {
                for (RecvWr wr = head; wr != null; wr = wr.next()) {
                    posted--; // the QP is going down: the flushes will not come for these
                }
                throw e;
            }
        }
    }

    /** Receives posted and not completed yet. */
    int posted() {
        return posted;
    }

    void destroy() {
        try {
            mr.dereg();
        } catch (RuntimeException e) {
            // device gone
        }
    }
}
