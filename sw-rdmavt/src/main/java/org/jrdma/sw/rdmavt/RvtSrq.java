package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.spi.DriverSrq;
import org.jrdma.ib.core.spi.SrqContext;

/**
 * A shared receive queue ({@code rxe_srq.c}). With {@code srq_limit} armed, taking a WQE that leaves
 * fewer than the limit disarms it and raises SRQ_LIMIT_REACHED, as the spec says.
 */
public final class RvtSrq implements DriverSrq {
    final SrqContext ctx;
    final RvtPd pd;
    private RecvRing ring;
    private int head;
    private int count;
    private final int maxSge;
    private int limit;

    RvtSrq(SrqContext ctx, RvtPd pd, SrqAttr attr) {
        this.ctx = ctx;
        this.pd = pd;
        this.maxSge = attr.maxSge();
        this.ring = new RecvRing(attr.maxWr(), maxSge);
        this.limit = attr.srqLimit();
    }

    void post(RecvWr first) {
        synchronized (this) {
            for (RecvWr wr = first; wr != null; wr = wr.next()) {
                if (wr.numSge() > maxSge) {
                    throw new PostException(Errno.EINVAL, "post_srq_recv: " + wr.numSge() + " SGEs, max_sge is " + maxSge, wr);
                }
                if (count == ring.size) {
                    throw new PostException(Errno.ENOMEM, "post_srq_recv: the SRQ is full (" + ring.size + ")", wr);
                }
                ring.put((head + count) % ring.size, wr);
                count++;
            }
        }
    }

    /** Takes the next WQE into {@code into}; false if the SRQ is empty. */
    boolean take(RecvWqe into) {
        boolean limitReached;
        synchronized (this) {
            if (count == 0) {
                return false;
            }
            ring.get(head, into);
            head = (head + 1) % ring.size;
            count--;
            limitReached = limit > 0 && count < limit;
            if (limitReached) {
                limit = 0;
            }
        }
        if (limitReached) {
            ctx.event(EventType.SRQ_LIMIT_REACHED);
        }
        return true;
    }

    synchronized SrqAttr query() {
        return new SrqAttr().maxWr(ring.size).maxSge(maxSge).srqLimit(limit);
    }

    synchronized void modify(SrqAttr attr, boolean resize, boolean arm) {
        if (resize && attr.maxWr() != ring.size) {
            if (attr.maxWr() < count) {
                throw new org.jrdma.ib.core.VerbsException(Errno.EINVAL, "modifySrq: " + count
                        + " posted WQEs do not fit in " + attr.maxWr());
            }
            RecvRing r = new RecvRing(attr.maxWr(), maxSge);
            for (int i = 0; i < count; i++) {
                r.copy(ring, (head + i) % ring.size, i);
            }
            ring = r;
            head = 0;
        }
        if (arm) {
            limit = attr.srqLimit();
        }
    }

    /** max_sge: a WQE taken from this SRQ has at most this many SGEs. */
    public int maxSge() {
        return maxSge;
    }

    public synchronized int count() {
        return count;
    }
}
