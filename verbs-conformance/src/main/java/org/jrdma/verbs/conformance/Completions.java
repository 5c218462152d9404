package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.CompletionHandler;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WorkCompletion;

/**
 * Bounded waiting for completions, which may arrive on driver threads. A CQ made with
 * {@link #waitable} is waited on the way a ULP does it (poll, re-arm with REPORT_MISSED_EVENTS,
 * sleep until the completion handler runs); any other CQ is polled with a short park, so tests of
 * the notification machinery itself are never disturbed by the helper arming their CQ.
 */
public final class Completions {
    /** How long a test waits for a completion that must come. Generous: a failing wait is a bug. */
    public static final long TIMEOUT_MS = 10_000;

    private Completions() {
    }

    /** The completion handler behind {@link #waitable}: counts calls and wakes waiters. */
    public static final class Waiter implements CompletionHandler {
        private long calls;

        @Override
        public synchronized void onCompletion(CompletionQueue cq) {
            calls++;
            notifyAll();
        }

        public synchronized long calls() {
            return calls;
        }

        synchronized void awaitCall(long seen, long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            while (calls == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                wait(Math.max(1, left / 1_000_000L));
            }
        }
    }

    /** CQ attributes whose completion handler {@link #poll} can sleep on. */
    public static CqInitAttr waitable(int cqe, EventHandler events) {
        Waiter w = new Waiter();
        return new CqInitAttr().cqe(cqe).compHandler(w).context(w).eventHandler(events);
    }

    /**
     * Waits for exactly {@code n} completions (never consumes more) and returns copies of them in
     * CQ order; fails if they do not all arrive within {@code timeoutMs}.
     */
    public static List<WorkCompletion> poll(CompletionQueue cq, int n, long timeoutMs) {
        List<WorkCompletion> out = new ArrayList<>(n);
        WorkCompletion[] wc = slots(Math.min(Math.max(n, 1), 32));
        Waiter waiter = cq.context() instanceof Waiter ? (Waiter) cq.context() : null;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (out.size() < n) {
            int k = cq.poll(wc, Math.min(wc.length, n - out.size()));
            for (int i = 0; i < k; i++) {
                out.add(new WorkCompletion().copyFrom(wc[i]));
            }
            if (k > 0) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("timed out after " + timeoutMs + " ms: " + out.size() + " of " + n
                        + " completions arrived: " + describe(out));
            }
            if (waiter != null) {
                long seen = waiter.calls();
                if (cq.reqNotify(CqNotify.NEXT_COMP, true)) {
                    continue; // completions may already be waiting: poll again before sleeping
                }
                try {
                    waiter.awaitCall(seen, Math.min(left, 20_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted while waiting for completions");
                }
            } else {
                LockSupport.parkNanos(Math.min(left, 50_000L));
            }
        }
        return out;
    }

    public static List<WorkCompletion> poll(CompletionQueue cq, int n) {
        return poll(cq, n, TIMEOUT_MS);
    }

    /** Waits for one completion. */
    public static WorkCompletion poll1(CompletionQueue cq) {
        return poll(cq, 1, TIMEOUT_MS).get(0);
    }

    /** Polls for {@code ms} milliseconds and fails if any completion shows up. */
    public static void expectNone(CompletionQueue cq, long ms) {
        WorkCompletion[] wc = slots(4);
        long deadline = System.nanoTime() + ms * 1_000_000L;
        do {
            int k = cq.poll(wc);
            if (k > 0) {
                List<WorkCompletion> got = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    got.add(wc[i]);
                }
                fail("expected no completion, got " + describe(got));
            }
            LockSupport.parkNanos(200_000L);
        } while (System.nanoTime() - deadline < 0);
    }

    /** Whatever completions are in the CQ now. */
    public static List<WorkCompletion> drain(CompletionQueue cq) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wc = slots(16);
        for (int k; (k = cq.poll(wc)) > 0; ) {
            for (int i = 0; i < k; i++) {
                out.add(new WorkCompletion().copyFrom(wc[i]));
            }
        }
        return out;
    }

    /** An array of {@code n} fresh completions, as {@link CompletionQueue#poll} wants. */
    public static WorkCompletion[] slots(int n) {
        WorkCompletion[] wc = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wc[i] = new WorkCompletion();
        }
        return wc;
    }

    /** Every field a test may look at, for failure messages. */
    public static String describe(WorkCompletion wc) {
        StringBuilder sb = new StringBuilder("wc{wr_id=").append(wc.wrId()).append(", ").append(wc.status())
                .append(", ").append(wc.opcode()).append(", byte_len=").append(wc.byteLen())
                .append(", qp_num=").append(wc.qpNum());
        if ((wc.wcFlags() & WcFlags.WITH_IMM) != 0) {
            sb.append(String.format(", imm=0x%x", wc.immData()));
        }
        if ((wc.wcFlags() & WcFlags.WITH_INVALIDATE) != 0) {
            sb.append(String.format(", inv_rkey=0x%x", wc.invalidateRkey()));
        }
        if (wc.srcQp() != 0) {
            sb.append(", src_qp=").append(wc.srcQp());
        }
        return sb.append(", flags=0x").append(Integer.toHexString(wc.wcFlags())).append('}').toString();
    }

    public static String describe(List<WorkCompletion> wcs) {
        StringBuilder sb = new StringBuilder("[");
        for (WorkCompletion wc : wcs) {
            sb.append(sb.length() == 1 ? "" : ", ").append(describe(wc));
        }
        return sb.append(']').toString();
    }
}
