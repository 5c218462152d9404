package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * What every suite shares: a fresh {@link VerbsTestBed} and {@link Resources} per test (torn down
 * and leak-checked afterwards), a hard timeout on every test and on set-up and tear-down, run in a
 * separate thread so that even a driver spinning without end fails the test instead of hanging the
 * run, and the assertions the suites use.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class VerbsSuite {
    protected VerbsTestBed bed;
    protected Resources res;

    /** The driver's bed; called once per test. */
    protected abstract VerbsTestBed newTestBed();

    @BeforeEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void openBed(TestInfo test) {
        bed = newTestBed();
        String key = test.getTestMethod().map(m -> m.getDeclaringClass().getSimpleName() + "#" + m.getName())
                .orElse("");
        String known = bed.knownFailures().get(key);
        if (known != null && !Boolean.getBoolean(RUN_KNOWN_FAILURES)) {
            Assumptions.abort("known failure of " + bed.a().driverName() + ": " + known);
        }
        res = new Resources(bed);
    }

    /** System property: run the tests a bed lists in {@link VerbsTestBed#knownFailures()} anyway. */
    public static final String RUN_KNOWN_FAILURES = "verbs.conformance.runKnownFailures";

    @AfterEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeBed() {
        try {
            if (res != null) {
                res.close();
            }
        } finally {
            if (bed != null) {
                bed.close();
            }
        }
    }

    // ---------------------------------------------------------------- work requests

    protected static SendWr wr(long wrId, WrOpcode op, Sge... sges) {
        return new SendWr().wrId(wrId).opcode(op).sgList(sges).sendFlags(SendFlags.SIGNALED);
    }

    protected static SendWr send(long wrId, Sge... sges) {
        return wr(wrId, WrOpcode.SEND, sges);
    }

    protected static SendWr write(long wrId, long remoteAddr, int rkey, Sge... sges) {
        return wr(wrId, WrOpcode.RDMA_WRITE, sges).remote(remoteAddr, rkey);
    }

    protected static SendWr read(long wrId, long remoteAddr, int rkey, Sge... sges) {
        return wr(wrId, WrOpcode.RDMA_READ, sges).remote(remoteAddr, rkey);
    }

    /** Links {@code wrs} into one chain and returns its head. */
    protected static SendWr chain(SendWr... wrs) {
        for (int i = 0; i + 1 < wrs.length; i++) {
            wrs[i].next(wrs[i + 1]);
        }
        return wrs[0];
    }

    // ---------------------------------------------------------------- memory keys

    /** {@code key} with a different key byte (the low 8 bits), as {@code ib_inc_rkey}. */
    protected static int nextKey(int key) {
        return (key & 0xffffff00) | ((key + 1) & 0xff);
    }

    /**
     * Fast registration: maps {@code mem} at {@code iova} into {@code mr} and posts REG_MR with a
     * new key byte on {@code s}'s QP; waits for its completion and returns the new key.
     */
    protected static int fastReg(Side s, MemoryRegion mr, ByteBuffer mem, long iova, int access) {
        mr.map(mem, iova);
        int key = nextKey(mr.rkey());
        s.postSend(new SendWr().wrId(0xfa57).opcode(WrOpcode.REG_MR).sendFlags(SendFlags.SIGNALED).mr(mr).key(key)
                .access(access));
        expectOk(s.scq, WcOpcode.REG_MR, 0xfa57);
        return key;
    }

    /** Binds {@code mw} to {@code [addr, addr+len)} of {@code mr} with BIND_MW on {@code s}'s QP; returns the new rkey. */
    protected static int bindMw(Side s, MemoryWindow mw, MemoryRegion mr, long addr, long len, int access) {
        int key = nextKey(mw.rkey());
        s.postSend(bindWr(0xb1d, mw, mr, addr, len, access, key));
        expectOk(s.scq, WcOpcode.BIND_MW, 0xb1d);
        return key;
    }

    protected static SendWr bindWr(long wrId, MemoryWindow mw, MemoryRegion mr, long addr, long len, int access,
            int key) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED).mw(mw).mr(mr)
                .bindAddr(addr).bindLength(len).access(access).key(key);
    }

    /** LOCAL_INV of {@code key} on {@code s}'s QP; waits for its completion. */
    protected static void localInvalidate(Side s, int key) {
        s.postSend(new SendWr().wrId(0x1417).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED)
                .invalidateRkey(key));
        expectOk(s.scq, WcOpcode.LOCAL_INV, 0x1417);
    }

    // ---------------------------------------------------------------- completions

    protected static WorkCompletion poll1(CompletionQueue cq) {
        return Completions.poll1(cq);
    }

    protected static List<WorkCompletion> poll(CompletionQueue cq, int n) {
        return Completions.poll(cq, n);
    }

    protected static void expectNone(CompletionQueue cq, long ms) {
        Completions.expectNone(cq, ms);
    }

    /** A successful completion of {@code wrId} with {@code opcode}. */
    protected static WorkCompletion assertOk(WorkCompletion wc, WcOpcode opcode, long wrId) {
        String d = Completions.describe(wc);
        assertEquals(WcStatus.SUCCESS, wc.status(), "status of " + d);
        assertEquals(opcode, wc.opcode(), "opcode of " + d);
        assertEquals(wrId, wc.wrId(), "wr_id of " + d);
        return wc;
    }

    /** A completion of {@code wrId} with status {@code status} (the opcode is undefined in error). */
    protected static WorkCompletion assertStatus(WorkCompletion wc, WcStatus status, long wrId) {
        String d = Completions.describe(wc);
        assertEquals(status, wc.status(), "status of " + d);
        assertEquals(wrId, wc.wrId(), "wr_id of " + d);
        return wc;
    }

    /** Polls one completion and checks it succeeded with {@code opcode}. */
    protected static WorkCompletion expectOk(CompletionQueue cq, WcOpcode opcode, long wrId) {
        return assertOk(poll1(cq), opcode, wrId);
    }

    protected static WorkCompletion expectStatus(CompletionQueue cq, WcStatus status, long wrId) {
        return assertStatus(poll1(cq), status, wrId);
    }

    /** Polls {@code wrIds.length} completions: each WR_FLUSH_ERR, in this order. */
    protected static void expectFlushed(CompletionQueue cq, long... wrIds) {
        List<WorkCompletion> wcs = poll(cq, wrIds.length);
        for (int i = 0; i < wrIds.length; i++) {
            assertStatus(wcs.get(i), WcStatus.WR_FLUSH_ERR, wrIds[i]);
        }
    }

    // ---------------------------------------------------------------- failures at post time

    /**
     * Runs a post that must fail with {@code errno}; returns the exception so the caller can check
     * {@link PostException#badWr()}.
     */
    protected static PostException assertPostFails(Errno errno, Executable post) {
        try {
            post.execute();
        } catch (PostException e) {
            assertEquals(errno, e.errno(), "errno of " + e.getMessage());
            return e;
        } catch (Throwable t) {
            fail("expected a PostException " + errno + ", got " + t, t);
        }
        return fail("expected a PostException " + errno + ", but the post succeeded");
    }

    protected static void assertBadWr(PostException e, Object expected) {
        assertSame(expected, e.badWr(), "bad_wr of " + e.getMessage());
    }

    /** A verb that must fail with {@code errno}. */
    protected static VerbsException assertVerbsFails(Errno errno, Executable verb) {
        try {
            verb.execute();
        } catch (VerbsException e) {
            assertEquals(errno, e.errno(), "errno of " + e.getMessage());
            return e;
        } catch (Throwable t) {
            fail("expected a VerbsException " + errno + ", got " + t, t);
        }
        return fail("expected a VerbsException " + errno + ", but the verb succeeded");
    }

    // ---------------------------------------------------------------- QP state

    /**
     * Waits (bounded) until {@code qp} is in {@code state}, as ib-core sees it and as the driver
     * reports it through query.
     */
    protected static void awaitState(QueuePair qp, QpState state) {
        long deadline = System.nanoTime() + Completions.TIMEOUT_MS * 1_000_000L;
        while (qp.state() != state || qp.query().state() != state) {
            if (System.nanoTime() - deadline > 0) {
                fail("QP " + qp.qpNum() + " did not reach " + state + ": ib-core says " + qp.state()
                        + ", query says " + qp.query().state());
            }
            LockSupport.parkNanos(100_000L);
        }
    }

    protected static void assertState(QueuePair qp, QpState state) {
        assertEquals(state, qp.state(), "state of QP " + qp.qpNum() + " (ib-core)");
        assertEquals(state, qp.query().state(), "state of QP " + qp.qpNum() + " (query)");
    }

    // ---------------------------------------------------------------- data

    protected static void assertBytes(byte[] expected, Buf buf, int off, String what) {
        byte[] got = buf.get(off, expected.length);
        if (!java.util.Arrays.equals(expected, got)) {
            int i = java.util.Arrays.mismatch(expected, got);
            assertArrayEquals(expected, got, what + ": first difference at byte " + i + " (buffer offset "
                    + (off + i) + ")");
        }
    }

    /** The bytes of {@code buf} in {@code [off, off+len)} are all {@code b} (untouched canary). */
    protected static void assertFilled(Buf buf, int off, int len, int b, String what) {
        for (int i = off; i < off + len; i++) {
            if (buf.bb.get(i) != (byte) b) {
                fail(what + ": byte " + i + " is " + (buf.bb.get(i) & 0xff) + ", expected untouched " + (b & 0xff));
            }
        }
    }
}
