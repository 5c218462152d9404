package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Isolation against a hostile or buggy peer, as a property over thousands of random cases (issue 17): RDMA WRITE,
 * READ and the two atomics with random keys (valid, another key byte, the key of a region deregistered a moment
 * ago, random), offsets and lengths around the region and random rights, against a region with canary bytes on both
 * sides. Each case: permitted exactly when the key names the live region, the range lies inside it and its rights
 * allow the operation (three in ten through a type 2 memory window bound to part of the region with part of its
 * rights, whose key is then invalidated with LOCAL_INV and tried again); a permitted one completes SUCCESS with the bytes it should move, any other REM_ACCESS_ERR;
 * and no byte outside the permitted range changes, on either side, nor leaks into the requester's buffer. The seed
 * is printed with a failure ({@code -Djrdma.isolation.seed=N} replays it).
 */
public abstract class IsolationSuite extends VerbsSuite {
    static final int PAD = 256;
    static final byte CANARY = (byte) 0xc5;
    static final byte LOCAL_CANARY = (byte) 0x3a;
    static final int MAX = 4096;
    static final int[] RIGHTS = {Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC};
    static final WrOpcode[] OPS = {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
        WrOpcode.ATOMIC_FETCH_AND_ADD};

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** Random cases per run; a driver with costly error recovery may run fewer. */
    protected int cases() {
        return 2000;
    }

    /** One case's target: a region registered over the middle of a buffer with canaries around it. */
    static final class Target {
        final ByteBuffer whole;
        final int size;
        final MemoryRegion mr;
        /** The region's address and key as registered (still known after it is gone). */
        final long iova;
        final int rkey;
        final int rights;

        Target(Side s, int size, int rights, long seed) {
            this(s.pd, size, rights, seed);
        }

        /** The region registered in {@code pd}, which need not be the PD of the QP the operations reach. */
        Target(ProtectionDomain pd, int size, int rights, long seed) {
            this.size = size;
            this.rights = rights;
            whole = ByteBuffer.allocateDirect(size + 2 * PAD);
            for (int i = 0; i < whole.capacity(); i++) {
                whole.put(i, CANARY);
            }
            byte[] fill = Buf.pattern(seed, size);
            whole.put(PAD, fill);
            mr = pd.regMr(whole.slice(PAD, size), Access.LOCAL_WRITE | Access.MW_BIND | rights);
            iova = mr.iova();
            rkey = mr.rkey();
        }

        byte[] bytes() {
            byte[] b = new byte[whole.capacity()];
            whole.get(0, b);
            return b;
        }
    }

    @Test
    void randomRemoteAccessNeverTouchesBytesOutsideThePermittedRange() {
        long seed = Long.getLong("jrdma.isolation.seed", System.nanoTime());
        Random r = new Random(seed);
        QpPair p = QpPair.rc(res);
        Buf src = p.a.buf(MAX + 64, Access.LOCAL_WRITE).fill(seed);
        Buf local = p.a.buf(MAX + 2 * PAD, Access.LOCAL_WRITE);
        int stale = 0;
        int staleMw = 0;
        int permitted = 0;
        for (int c = 0; c < cases(); c++) {
            Target t = new Target(p.b, 8 + r.nextInt(MAX - 8), pickRights(r), r.nextLong());
            MemoryWindow mw = null;
            try {
                Grant g;
                if (r.nextInt(10) < 3 && (g = window(p, t, r)) != null) {
                    mw = g.mw;
                } else {
                    g = new Grant(null, t.mr.rkey(), 0, t.size, t.rights);
                }
                int k = r.nextInt(10);
                int key = k < 7 ? g.key : k == 7 ? g.key ^ 0x80 : k == 8 ? (g.mw != null ? staleMw : stale) : r.nextInt();
                permitted += runCase(p, src, local, t, g, key, r, c) ? 1 : 0;
                if (mw != null && p.b.state() == QpState.RTS) {
                    // LOCAL_INV: the window's key is dead at once, the region's stays
                    localInvalidate(p.b, g.key);
                    runCase(p, src, local, t, g.invalidated(), g.key, r, c);
                }
                staleMw = mw != null ? g.key : staleMw;
            } catch (AssertionError e) {
                fail("isolation case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            } finally {
                if (mw != null) {
                    mw.dealloc();
                }
                stale = t.mr.rkey();
                t.mr.dereg();
            }
        }
        // the mix must exercise both outcomes, or the property says little
        int n = cases();
        if (permitted < n / 10 || permitted > n * 9 / 10) {
            fail(permitted + " of " + n + " cases permitted (seed " + seed + ")");
        }
    }

    /** What a key grants: [lo, hi) of the target region with rights; {@code mw} when it is a window's. */
    record Grant(MemoryWindow mw, int key, int lo, int hi, int rights) {
        /** The same window after LOCAL_INV: its key grants nothing. */
        Grant invalidated() {
            return new Grant(mw, key ^ 0x5a5a5a00, lo, lo, 0);
        }
    }

    /** A type 2 window bound by the target's QP to a random part of the region with some of its rights; null if none. */
    private static Grant window(QpPair p, Target t, Random r) {
        int rights = pickRights(r) & t.rights;
        if (rights == 0) {
            return null;
        }
        int lo = r.nextInt(t.size);
        int hi = lo + 1 + r.nextInt(t.size - lo);
        MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
        try {
            int key = bindMw(p.b, mw, t.mr, t.mr.iova() + lo, hi - lo, rights);
            return new Grant(mw, key, lo, hi, rights);
        } catch (RuntimeException | AssertionError e) {
            mw.dealloc();
            throw e;
        }
    }

    private static int pickRights(Random r) {
        int rights = 0;
        for (int x : RIGHTS) {
            if (r.nextInt(4) != 0) {
                rights |= x;
            }
        }
        return rights;
    }

    /** One case; true if it was permitted. */
    static boolean runCase(QpPair p, Buf src, Buf local, Target t, Grant g, int key, Random r, int c) {
        WrOpcode op = OPS[r.nextInt(OPS.length)];
        boolean atomic = op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
        boolean keyOk = key == g.key && g.hi > g.lo;
        int off = r.nextInt(t.size + 128) - 64;
        int len = atomic ? 8 : 1 + r.nextInt(Math.min(t.size + 64, MAX));
        if (atomic) {
            off &= ~7; // aligned: a misaligned atomic is another error (invalid request), not this property's
        }
        int right = op == WrOpcode.RDMA_WRITE ? Access.REMOTE_WRITE
                : op == WrOpcode.RDMA_READ ? Access.REMOTE_READ : Access.REMOTE_ATOMIC;
        boolean ok = keyOk && off >= g.lo && off + len <= g.hi && (g.rights & right) != 0;
        byte[] before = t.bytes();
        for (int i = 0; i < local.size(); i++) {
            local.bb.put(i, LOCAL_CANARY);
        }
        int srcOff = r.nextInt(64);
        long remote = t.iova + off;
        long cmp = r.nextBoolean() ? t.whole.getLong(Math.max(PAD, Math.min(PAD + off, PAD + t.size - 8))) : r.nextLong();
        long swapOrAdd = r.nextLong();
        SendWr wr = switch (op) {
            case RDMA_WRITE -> write(c, remote, key, src.sge(srcOff, len));
            case RDMA_READ -> read(c, remote, key, local.sge(PAD, len));
            case ATOMIC_CMP_AND_SWP -> wr(c, op, local.sge(PAD, 8)).remote(remote, key).compareAdd(cmp).swap(swapOrAdd);
            default -> wr(c, op, local.sge(PAD, 8)).remote(remote, key).compareAdd(swapOrAdd);
        };
        p.a.postSend(wr);
        WorkCompletion wc = poll1(p.a.scq);
        String what = op + (g.mw != null ? " through a window [" + g.lo + ", " + g.hi + ")" : "") + " key "
                + (keyOk ? "valid" : "bad") + " off " + off + " len " + len + " of " + t.size + " rights 0x"
                + Integer.toHexString(g.rights);
        assertEquals(ok ? WcStatus.SUCCESS : WcStatus.REM_ACCESS_ERR, wc.status(), what);
        byte[] expect = before.clone();
        byte[] localExpect = new byte[local.size()];
        Arrays.fill(localExpect, LOCAL_CANARY);
        if (ok) {
            apply(op, expect, PAD + off, len, src.get(srcOff, len), cmp, swapOrAdd, before, localExpect);
        }
        assertArrayEquals(expect, t.bytes(), what + ": the target and its canaries");
        assertArrayEquals(localExpect, local.get(0, local.size()), what + ": the requester's buffer");
        if (!ok) {
            // class C: both QPs go to ERR; to RESET and connected again for the next case
            awaitState(p.a.qp, QpState.ERR);
            awaitState(p.b.qp, QpState.ERR);
            p.a.qp.modify(new QpAttr().state(QpState.RESET));
            p.b.qp.modify(new QpAttr().state(QpState.RESET));
            p.reconnect(r.nextInt(), r.nextInt());
        }
        return ok;
    }

    /** What a permitted operation does to the target's bytes and the requester's buffer (64-bit values big-endian, as the drivers keep them). */
    private static void apply(WrOpcode op, byte[] target, int at, int len, byte[] data, long cmp, long swapOrAdd,
            byte[] before, byte[] local) {
        ByteBuffer tb = ByteBuffer.wrap(target);
        ByteBuffer lb = ByteBuffer.wrap(local);
        switch (op) {
            case RDMA_WRITE -> System.arraycopy(data, 0, target, at, len);
            case RDMA_READ -> System.arraycopy(before, at, local, PAD, len);
            case ATOMIC_CMP_AND_SWP -> {
                long old = tb.getLong(at);
                lb.putLong(PAD, old);
                if (old == cmp) {
                    tb.putLong(at, swapOrAdd);
                }
            }
            default -> {
                long old = tb.getLong(at);
                lb.putLong(PAD, old);
                tb.putLong(at, old + swapOrAdd);
            }
        }
    }
}
