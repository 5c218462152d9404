package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.jrdma.ib.core.spi.DriverCq;

/**
 * A completion queue ({@code rxe_cq.c}): a fixed ring of preallocated completions, so posting and
 * polling allocate nothing. When full, a completion is dropped and CQ_ERR raised, as rxe's
 * {@code rxe_cq_post} does on overflow.
 */
public final class RvtCq implements DriverCq {
    private static final int DISARMED = 0;
    private static final int NEXT = 1;
    private static final int SOLICITED = 2;

    final CqContext ctx;
    private WorkCompletion[] ring;
    private int head;
    private int count;
    private int armed;
    private long overflows;

    RvtCq(CqContext ctx, int cqe) {
        this.ctx = ctx;
        this.ring = newRing(cqe);
    }

    private static WorkCompletion[] newRing(int n) {
        WorkCompletion[] r = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            r[i] = new WorkCompletion();
        }
        return r;
    }

    @Override
    public synchronized int cqe() {
        return ring.length;
    }

    /**
     * Posts a copy of {@code wc}. Runs the completion handler (outside the CQ lock) if the CQ is
     * armed for it: any completion for NEXT_COMP; a solicited or failed one for SOLICITED.
     *
     * @return false if the CQ overflowed (the completion is lost, CQ_ERR was raised)
     */
    public boolean post(WorkCompletion wc, boolean solicited) {
        boolean posted;
        boolean notify = false;
        synchronized (this) {
            posted = count < ring.length;
            if (posted) {
                ring[(head + count) % ring.length].copyFrom(wc);
                count++;
                notify = armed == NEXT
                        || armed == SOLICITED && (solicited || wc.status() != WcStatus.SUCCESS);
                if (notify) {
                    armed = DISARMED;
                }
            } else {
                overflows++;
            }
        }
        if (!posted) {
            ctx.overflow();
        } else if (notify) {
            ctx.completion();
        }
        return posted;
    }

    synchronized int poll(WorkCompletion[] out, int max) {
        int n = 0;
        while (n < max && count > 0) {
            out[n++].copyFrom(ring[head]);
            head = (head + 1) % ring.length;
            count--;
        }
        return n;
    }

    synchronized boolean arm(CqNotify type, boolean reportMissed) {
        // SOLICITED does not weaken an armed NEXT_COMP
        if (type == CqNotify.NEXT_COMP || armed != NEXT) {
            armed = type == CqNotify.NEXT_COMP ? NEXT : SOLICITED;
        }
        return reportMissed && count > 0;
    }

    synchronized void resize(int cqe) {
        if (cqe < count) {
            throw new VerbsException(Errno.EINVAL, "resizeCq: " + count + " completions do not fit in " + cqe);
        }
        WorkCompletion[] r = newRing(cqe);
        for (int i = 0; i < count; i++) {
            r[i].copyFrom(ring[(head + i) % ring.length]);
        }
        ring = r;
        head = 0;
    }

    public synchronized int count() {
        return count;
    }

    public synchronized long overflows() {
        return overflows;
    }
}
