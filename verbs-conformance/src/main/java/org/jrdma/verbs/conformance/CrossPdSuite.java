package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * Protection domains as a property (issue 17): on one device a region belongs to one PD and only QPs of that PD may
 * use its keys. Random cases with regions registered either in the QP's PD or in another PD of the same device,
 * with all rights and in range, so the PD alone decides: a remote key of another PD's region gets REM_ACCESS_ERR
 * (the responder's {@code check_rkey}: {@code mr->pd != qp->pd}), a local key of another PD's region LOC_PROT_ERR
 * at the requester; either way no byte changes on either side. The seed is printed with a failure
 * ({@code -Djrdma.isolation.seed=N} replays it).
 */
public abstract class CrossPdSuite extends VerbsSuite {
    static final int MAX = IsolationSuite.MAX;
    static final int ALL_REMOTE = Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
    static final byte UNTOUCHED = (byte) 0xee;

    @Override
    protected abstract VerbsTestBed newTestBed();

    protected int cases() {
        return 1000;
    }

    @Test
    void remoteKeyOfAnotherPdsRegionIsRemAccessErr() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        QpPair p = QpPair.rc(res);
        ProtectionDomain other = res.pd(p.b.dev);
        Buf src = p.a.buf(MAX + 64, Access.LOCAL_WRITE).fill(seed);
        Buf local = p.a.buf(MAX + 2 * IsolationSuite.PAD, Access.LOCAL_WRITE);
        int mineCount = 0;
        for (int c = 0; c < cases(); c++) {
            boolean mine = r.nextBoolean();
            IsolationSuite.Target t = new IsolationSuite.Target(mine ? p.b.pd : other, 8 + r.nextInt(MAX - 8),
                    ALL_REMOTE, r.nextLong());
            try {
                // another PD's region grants this QP nothing, whatever the range
                IsolationSuite.Grant g = new IsolationSuite.Grant(null, t.mr.rkey(), 0, mine ? t.size : 0,
                        mine ? ALL_REMOTE : 0);
                IsolationSuite.runCase(p, src, local, t, g, t.mr.rkey(), r, c);
                mineCount += mine ? 1 : 0;
            } catch (AssertionError e) {
                fail("cross-PD remote case " + c + " (region in " + (mine ? "the QP's PD" : "another PD") + ") of seed "
                        + seed + " (-Djrdma.isolation.seed=" + seed + "): " + e.getMessage(), e);
            } finally {
                t.mr.dereg();
            }
        }
        assertMix(mineCount, seed);
    }

    public enum LocalOp {
        SEND, RDMA_WRITE, RDMA_READ
    }

    @Test
    void localKeyOfAnotherPdsRegionIsLocProtErr() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        QpPair p = QpPair.rc(res);
        Buf[] locals = {p.a.buf(MAX, Access.LOCAL_WRITE), res.buf(res.pd(p.a.dev), MAX, Access.LOCAL_WRITE)};
        Buf remote = p.b.buf(MAX, ALL_REMOTE | Access.LOCAL_WRITE);
        Buf recv = p.b.buf(MAX, Access.LOCAL_WRITE);
        int ok = 0;
        for (int c = 0; c < cases(); c++) {
            try {
                ok += localCase(p, locals, remote, recv, r, c) ? 1 : 0;
            } catch (AssertionError e) {
                fail("cross-PD local case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        assertMix(ok, seed);
    }

    private void assertMix(int mine, long seed) {
        int n = cases();
        if (mine < n / 4 || mine > n * 3 / 4) {
            fail(mine + " of " + n + " cases used the QP's own PD (seed " + seed + ")");
        }
    }

    /** One case: a SEND, WRITE or READ whose local SGE is in the QP's PD or another one; true if it was the QP's. */
    private boolean localCase(QpPair p, Buf[] locals, Buf remote, Buf recv, Random r, int c) {
        boolean mine = r.nextBoolean();
        Buf local = locals[mine ? 0 : 1];
        LocalOp op = LocalOp.values()[r.nextInt(3)];
        int len = 1 + r.nextInt(MAX / 2);
        int off = r.nextInt(MAX - len + 1);
        int roff = r.nextInt(MAX - len + 1);
        local.fill(r.nextLong());
        remote.fill(r.nextLong());
        recv.fillByte(UNTOUCHED);
        byte[] localBefore = local.get(0, MAX);
        byte[] remoteBefore = remote.get(0, MAX);
        if (op == LocalOp.SEND) {
            p.b.postRecv(c, recv.sge());
        }
        Sge sge = local.sge(off, len);
        SendWr wr = switch (op) {
            case SEND -> send(c, sge);
            case RDMA_WRITE -> write(c, remote.addr(roff), remote.rkey(), sge);
            case RDMA_READ -> read(c, remote.addr(roff), remote.rkey(), sge);
        };
        p.a.postSend(wr);
        WorkCompletion wc = poll1(p.a.scq);
        String what = op + " of " + len + " with the lkey of a region in " + (mine ? "the QP's PD" : "another PD");
        assertEquals(mine ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR, wc.status(), what);
        byte[] localExpect = localBefore.clone();
        byte[] remoteExpect = remoteBefore.clone();
        if (mine && op == LocalOp.RDMA_WRITE) {
            System.arraycopy(localBefore, off, remoteExpect, roff, len);
        } else if (mine && op == LocalOp.RDMA_READ) {
            System.arraycopy(remoteBefore, roff, localExpect, off, len);
        }
        if (mine && op == LocalOp.SEND) {
            WorkCompletion rc = expectOk(p.b.rcq, WcOpcode.RECV, c);
            assertEquals(len, rc.byteLen(), what);
            assertBytes(Buf.slice(localBefore, off, len), recv, 0, what + ": the message");
            assertFilled(recv, len, MAX - len, UNTOUCHED, what + ": after the message");
        } else {
            assertFilled(recv, 0, MAX, UNTOUCHED, what + ": the responder's receive buffer");
        }
        assertBytes(localExpect, local, 0, what + ": the requester's memory");
        assertBytes(remoteExpect, remote, 0, what + ": the responder's memory");
        if (!mine) {
            // LOC_PROT_ERR moved the requester to ERR, the responder stays in RTS; a SEND's receive, still
            // posted, is flushed on the responder's way to RESET
            awaitState(p.a.qp, QpState.ERR);
            assertState(p.b.qp, QpState.RTS);
            if (op == LocalOp.SEND) {
                p.b.qp.modify(new QpAttr().state(QpState.ERR));
                expectFlushed(p.b.rcq, c);
            }
            p.a.qp.modify(new QpAttr().state(QpState.RESET));
            p.b.qp.modify(new QpAttr().state(QpState.RESET));
            p.reconnect(r.nextInt(), r.nextInt());
        }
        return mine;
    }
}
