package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** CMP_AND_SWP and FETCH_AND_ADD: results, alignment, and atomicity under contention. */
public abstract class AtomicSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int RA = Access.LOCAL_WRITE | Access.REMOTE_ATOMIC;

    @Override
    protected abstract VerbsTestBed newTestBed();

    static SendWr cas(long wrId, Buf result, int off, long remote, int rkey, long compare, long swap) {
        return wr(wrId, WrOpcode.ATOMIC_CMP_AND_SWP, result.sge(off, 8)).remote(remote, rkey).compareAdd(compare)
                .swap(swap);
    }

    static SendWr fadd(long wrId, Buf result, int off, long remote, int rkey, long add) {
        return wr(wrId, WrOpcode.ATOMIC_FETCH_AND_ADD, result.sge(off, 8)).remote(remote, rkey).compareAdd(add);
    }

    /** A hit swaps and returns the old value; a miss returns the current value and leaves it. */
    @Test
    void compareAndSwapHitAndMiss() {
        QpPair p = QpPair.rc(res);
        Buf target = p.b.buf(64, RA).putLong(8, 42);
        Buf result = p.a.buf(16, LW).putLong(0, -1).putLong(8, -1);

        p.a.postSend(cas(1, result, 0, target.addr(8), target.rkey(), 42, 0x0123_4567_89ab_cdefL));
        WorkCompletion wc = expectOk(p.a.scq, WcOpcode.COMP_SWAP, 1);
        assertEquals(8, wc.byteLen(), "byte_len of an atomic");
        assertEquals(42, result.getLong(0), "original value returned by a hit");
        assertEquals(0x0123_4567_89ab_cdefL, target.getLong(8), "swapped");

        p.a.postSend(cas(2, result, 8, target.addr(8), target.rkey(), 42, 7));
        expectOk(p.a.scq, WcOpcode.COMP_SWAP, 2);
        assertEquals(0x0123_4567_89ab_cdefL, result.getLong(8), "current value returned by a miss");
        assertEquals(0x0123_4567_89ab_cdefL, target.getLong(8), "a miss leaves the target");
        assertEquals(0, target.getLong(0), "the neighbour before");
        assertEquals(0, target.getLong(16), "the neighbour after");
    }

    /** FETCH_AND_ADD returns the original and adds in 64 bits (carry past bit 31, wrap at 2^64). */
    @Test
    void fetchAndAddReturnsOriginal() {
        QpPair p = QpPair.rc(res);
        Buf target = p.b.buf(64, RA).putLong(0, 1000);
        Buf result = p.a.buf(32, LW);

        p.a.postSend(fadd(1, result, 0, target.addr(0), target.rkey(), 5));
        expectOk(p.a.scq, WcOpcode.FETCH_ADD, 1);
        assertEquals(1000, result.getLong(0));
        assertEquals(1005, target.getLong(0));

        target.putLong(0, 0xffff_ffffL);
        p.a.postSend(fadd(2, result, 8, target.addr(0), target.rkey(), 1));
        expectOk(p.a.scq, WcOpcode.FETCH_ADD, 2);
        assertEquals(0xffff_ffffL, result.getLong(8));
        assertEquals(0x1_0000_0000L, target.getLong(0), "carry past 32 bits");

        target.putLong(0, -1L);
        p.a.postSend(fadd(3, result, 16, target.addr(0), target.rkey(), 2));
        expectOk(p.a.scq, WcOpcode.FETCH_ADD, 3);
        assertEquals(-1L, result.getLong(16));
        assertEquals(1L, target.getLong(0), "wraps at 2^64");
    }

    /** An atomic's remote address must be 8-byte aligned: refused at post, nothing happens. */
    @Test
    void misalignedRemoteAddressRejectedAtPost() {
        QpPair p = QpPair.rc(res);
        Buf target = p.b.buf(64, RA).putLong(8, 5);
        Buf result = p.a.buf(8, LW);
        SendWr bad = fadd(1, result, 0, target.addr(4), target.rkey(), 1);
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.postSend(bad)), bad);
        SendWr bad2 = cas(2, result, 0, target.addr(9), target.rkey(), 5, 6);
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.postSend(bad2)), bad2);
        expectNone(p.a.scq, 20);
        assertEquals(5, target.getLong(8), "target untouched");
    }

    /** Atomics exist on RC only. */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"UC", "UD"})
    void atomicsRejectedOnUnreliableQp(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        Buf target = p.b.buf(64, RA);
        Buf result = p.a.buf(8, LW);
        SendWr w = fadd(1, result, 0, target.addr(0), target.rkey(), 1);
        if (type == QpType.UD) {
            w.ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey);
        }
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.postSend(w)), w);
    }

    /**
     * N QPs on N threads each do M fetch-adds of 1 on one 8-byte target: the final value is N*M
     * and the originals returned are exactly 0..N*M-1, each once.
     */
    @Test
    void fetchAddUnderContention() throws Exception {
        final int n = 4;
        final int m = 1000;
        final int window = 16;
        ProtectionDomain pdA = res.pd(res.bed().a());
        ProtectionDomain pdB = res.pd(res.bed().b());
        Buf target = res.buf(pdB, 64, RA);
        List<QpPair> pairs = new ArrayList<>();
        List<Buf> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairs.add(QpPair.builder(res, QpType.RC).pds(pdA, pdB).maxSendWr(window).cqe(2 * window).build());
            results.add(res.buf(pdA, m * 8, LW));
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                QpPair p = pairs.get(i);
                Buf result = results.get(i);
                done.add(pool.submit(() -> {
                    SendWr[] w = new SendWr[window];
                    for (int k = 0; k < m; k += window) {
                        int c = Math.min(window, m - k);
                        SendWr[] ws = Arrays.copyOf(w, c);
                        for (int j = 0; j < c; j++) {
                            ws[j] = fadd(k + j, result, (k + j) * 8, target.addr(0), target.rkey(), 1);
                        }
                        p.a.postSend(chain(ws));
                        List<WorkCompletion> wcs = Completions.poll(p.a.scq, c, 30_000);
                        for (int j = 0; j < c; j++) {
                            assertOk(wcs.get(j), WcOpcode.FETCH_ADD, k + j);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals((long) n * m, target.getLong(0), "final value after " + n + " x " + m + " fetch-adds of 1");
        long[] seen = new long[n * m];
        int i = 0;
        for (Buf r : results) {
            for (int k = 0; k < m; k++) {
                seen[i++] = r.getLong(k * 8);
            }
        }
        Arrays.sort(seen);
        for (int v = 0; v < seen.length; v++) {
            if (seen[v] != v) {
                fail("the originals returned are not exactly 0.." + (n * m - 1) + ": sorted position " + v + " holds "
                        + seen[v] + (v > 0 && seen[v] == seen[v - 1] ? " (returned twice)" : ""));
            }
        }
    }
}
