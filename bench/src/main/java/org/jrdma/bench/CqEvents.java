package org.jrdma.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.CompletionHandler;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;

/**
 * Waiting for completions by event instead of polling (perftest's {@code -e}): the CQ's handler counts them and
 * wakes the waiting thread, which sleeps meanwhile. On a host where the transport's own threads need the cores (a
 * soft device), the poller's spin takes CPU they would use; the TCP baseline's threads block too.
 */
final class CqEvents implements CompletionHandler {
    private final WorkCompletion[] wc = new WorkCompletion[16];
    private final AtomicLong done = new AtomicLong();
    private volatile Thread waiter;
    private volatile String failed;
    private long taken;

    CqEvents() {
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** Asks for the first event (after the CQ exists). */
    void arm(CompletionQueue cq) {
        cq.reqNotify(CqNotify.NEXT_COMP, false);
    }

    @Override
    public void onCompletion(CompletionQueue cq) {
        drain(cq);
        cq.reqNotify(CqNotify.NEXT_COMP, false);
        drain(cq); // a completion between the last poll and the arm raised no event
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    private void drain(CompletionQueue cq) {
        int n;
        while ((n = cq.poll(wc)) > 0) {
            for (int i = 0; i < n; i++) {
                if (wc[i].status() != WcStatus.SUCCESS && failed == null) {
                    failed = "completion " + wc[i];
                }
            }
            done.addAndGet(n);
        }
    }

    /** Sleeps until {@code n} more completions than this thread has taken so far arrived. */
    void await(int n) {
        long target = taken + n;
        waiter = Thread.currentThread();
        while (done.get() < target) {
            if (failed != null) {
                throw new IllegalStateException(failed);
            }
            LockSupport.parkNanos(this, 10_000_000L);
        }
        taken = target;
    }
}
