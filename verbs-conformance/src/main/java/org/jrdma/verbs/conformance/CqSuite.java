package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/** Completion queues: batch polling, overflow, notification arming, missed events, resize. */
public abstract class CqSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE;

    @Override
    protected abstract VerbsTestBed newTestBed();

    static SendWr[] writes(int n, Buf src, Buf dst) {
        SendWr[] w = new SendWr[n];
        for (int i = 0; i < n; i++) {
            w[i] = write(i, dst.addr(8 * i), dst.rkey(), src.sge(8 * i, 8));
        }
        return w;
    }

    /** 100 completions, polled 16 at a time: never more than asked, all there, in order. */
    @Test
    void pollInBatches() {
        QpPair p = QpPair.builder(res, QpType.RC).maxSendWr(128).cqe(128).build();
        Buf src = p.a.buf(800, LW).fill(91);
        Buf dst = p.b.buf(800, RW);
        p.a.postSend(chain(writes(100, src, dst)));

        WorkCompletion[] wc = Completions.slots(16);
        int got = 0;
        long deadline = System.nanoTime() + Completions.TIMEOUT_MS * 1_000_000L;
        while (got < 100) {
            int k = p.a.scq.poll(wc);
            assertTrue(k >= 0 && k <= 16, "poll returned " + k + " into 16 slots");
            for (int i = 0; i < k; i++) {
                assertOk(wc[i], WcOpcode.RDMA_WRITE, got + i);
            }
            got += k;
            if (k == 0) {
                if (System.nanoTime() - deadline > 0) {
                    fail("only " + got + " of 100 completions arrived");
                }
                LockSupport.parkNanos(100_000L);
            }
        }
        assertEquals(0, p.a.scq.poll(wc), "a 101st completion");
        assertBytes(src.get(0, 800), dst, 0, "the 100 writes");

        // poll(wc, max) fills at most max slots
        p.a.postSend(chain(writes(10, src, dst)));
        Completions.poll(p.a.scq, 1); // wait until completions flow
        int n = 1;
        while (n < 10) {
            int k = p.a.scq.poll(wc, 3);
            assertTrue(k <= 3, "poll(wc, 3) returned " + k);
            n += k;
            LockSupport.parkNanos(50_000L);
        }
    }

    /** More completions than the CQ holds: CQ_ERR on the CQ's event handler. */
    @Test
    void overflowRaisesCqErr() {
        EventLog cqEvents = new EventLog();
        CompletionQueue small = res.cq(res.bed().a(), new CqInitAttr().cqe(4).eventHandler(cqEvents));
        int n = small.cqe() + 4;
        QpPair p = QpPair.builder(res, QpType.RC).maxSendWr(n).cqsA(small, res.cq(res.bed().a(), 16, null)).build();
        Buf src = p.a.buf(8 * n, LW);
        Buf dst = p.b.buf(8 * n, RW);
        p.a.postSend(chain(writes(n, src, dst)));
        AsyncEvent e = cqEvents.await(EventType.CQ_ERR, Completions.TIMEOUT_MS);
        assertSame(small, e.cq(), "CQ_ERR names the CQ");
    }

    /** NEXT_COMP wakes the handler once per arm, however many completions follow; unarmed, never. */
    @Test
    void nextCompWakesExactlyOncePerArm() {
        AtomicInteger calls = new AtomicInteger();
        CompletionQueue cq = res.cq(res.bed().a(), new CqInitAttr().cqe(64).compHandler(c -> calls.incrementAndGet()));
        QpPair p = QpPair.builder(res, QpType.RC).cqsA(cq, res.cq(res.bed().a(), 16, null)).build();
        Buf src = p.a.buf(64, LW);
        Buf dst = p.b.buf(64, RW);

        p.a.postSend(writes(1, src, dst)[0]);
        Completions.poll(cq, 1);
        LockSupport.parkNanos(20_000_000L);
        assertEquals(0, calls.get(), "the handler ran without an arm");

        cq.reqNotify(CqNotify.NEXT_COMP, false);
        p.a.postSend(chain(writes(3, src, dst)));
        Completions.poll(cq, 3);
        SendRecvSuite.awaitCount(calls, 1);
        LockSupport.parkNanos(20_000_000L);
        assertEquals(1, calls.get(), "3 completions after one arm");

        cq.reqNotify(CqNotify.NEXT_COMP, false);
        p.a.postSend(writes(1, src, dst)[0]);
        Completions.poll(cq, 1);
        SendRecvSuite.awaitCount(calls, 2);
        LockSupport.parkNanos(20_000_000L);
        assertEquals(2, calls.get(), "one more completion after a second arm");
    }

    /** With REPORT_MISSED_EVENTS, arming a CQ that holds unpolled completions returns true. */
    @Test
    void reportMissedEventsWhenCompletionsWait() throws InterruptedException {
        CountDownLatch woke = new CountDownLatch(1);
        CompletionQueue cq = res.cq(res.bed().a(), new CqInitAttr().cqe(64).compHandler(c -> woke.countDown()));
        QpPair p = QpPair.builder(res, QpType.RC).cqsA(cq, res.cq(res.bed().a(), 16, null)).build();
        Buf src = p.a.buf(64, LW);
        Buf dst = p.b.buf(64, RW);
        cq.reqNotify(CqNotify.NEXT_COMP, false);
        p.a.postSend(chain(writes(2, src, dst)));
        assertTrue(woke.await(Completions.TIMEOUT_MS, TimeUnit.MILLISECONDS), "the armed CQ was never woken");
        // the handler ran, so a completion is in the CQ and nobody polled it
        assertTrue(cq.reqNotify(CqNotify.NEXT_COMP, true), "reqNotify(REPORT_MISSED_EVENTS) with completions waiting");
        List<WorkCompletion> wcs = Completions.poll(cq, 2);
        assertOk(wcs.get(0), WcOpcode.RDMA_WRITE, 0);
        assertOk(wcs.get(1), WcOpcode.RDMA_WRITE, 1);
    }

    /** Resizing keeps the completions waiting in the CQ. */
    @Test
    void resizeKeepsWaitingCompletions() {
        CountDownLatch woke = new CountDownLatch(1);
        CompletionQueue cq = res.cq(res.bed().a(), new CqInitAttr().cqe(8).compHandler(c -> woke.countDown()));
        QpPair p = QpPair.builder(res, QpType.RC).cqsA(cq, res.cq(res.bed().a(), 16, null)).build();
        Buf src = p.a.buf(64, LW);
        Buf dst = p.b.buf(64, RW);
        p.a.postSend(chain(writes(3, src, dst)));
        LockSupport.parkNanos(20_000_000L);
        cq.resize(64);
        assertTrue(cq.cqe() >= 64, "cqe after resize: " + cq.cqe());
        List<WorkCompletion> wcs = Completions.poll(cq, 3);
        for (int i = 0; i < 3; i++) {
            assertOk(wcs.get(i), WcOpcode.RDMA_WRITE, i);
        }
        p.a.postSend(chain(writes(8, src, dst)));
        List<WorkCompletion> more = Completions.poll(cq, 8);
        for (int i = 0; i < 8; i++) {
            assertOk(more.get(i), WcOpcode.RDMA_WRITE, i);
        }
    }
}
