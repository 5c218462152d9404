package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Memory windows: type 2 bound to a QP with BIND_MW, remote access inside and outside the window,
 * invalidation (LOCAL_INV, SEND_WITH_INV), the MW_BIND right, type 1 bind and unbind, and an MR
 * that cannot go while a window is bound to it.
 */
public abstract class MwSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    /** The MR behind the windows grants no remote access itself. */
    static final int MR_ACCESS = Access.LOCAL_WRITE | Access.MW_BIND;
    static final int WIN = Access.REMOTE_WRITE | Access.REMOTE_READ;
    static final int OFF = 4096;
    static final int LEN = 4096;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** Type 2 window over [OFF, OFF+LEN) of a 16 KiB MR: WRITE and READ through its rkey work inside. */
    @Test
    void type2WindowAllowsAccessInside() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, WIN);
        assertEquals(rkey, mw.rkey(), "the window's rkey after the bind");
        assertTrue(rkey != mem.rkey(), "a window has its own key");

        Buf local = p.a.buf(LEN, LW).fill(71);
        p.a.postSend(write(1, mem.addr(OFF + 10), rkey, local.sge(0, 100)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertBytes(local.get(0, 100), mem, OFF + 10, "written through the window");
        assertFilled(mem, 0, OFF + 10, 0xee, "before the write");

        // the whole window, edge to edge
        mem.bb.put(OFF, Buf.pattern(72, LEN));
        Buf back = p.a.buf(LEN, LW);
        p.a.postSend(read(2, mem.addr(OFF), rkey, back.sge()));
        WorkCompletion wc = expectOk(p.a.scq, WcOpcode.RDMA_READ, 2);
        assertEquals(LEN, wc.byteLen());
        assertBytes(Buf.pattern(72, LEN), back, 0, "read through the window");
    }

    /**
     * A type 2 window belongs to the QP it was bound on: another connection into the same PD
     * cannot use its rkey. A type 1 window belongs to the PD: any of its QPs can.
     */
    @Test
    void type2WindowBelongsToItsQpType1ToThePd() {
        org.jrdma.ib.core.ProtectionDomain pdA = res.pd(res.bed().a());
        org.jrdma.ib.core.ProtectionDomain pdB = res.pd(res.bed().b());
        QpPair p = QpPair.builder(res, org.jrdma.ib.core.QpType.RC).pds(pdA, pdB).build();
        QpPair other = QpPair.builder(res, org.jrdma.ib.core.QpType.RC).pds(pdA, pdB).build();
        Buf mem = res.buf(pdB, 16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw1 = res.mw(pdB, MwType.TYPE_1);
        int key1 = bindMw(p.b, mw1, mem.mr, mem.addr(0), LEN, WIN);
        MemoryWindow mw2 = res.mw(pdB, MwType.TYPE_2);
        int key2 = bindMw(p.b, mw2, mem.mr, mem.addr(OFF), LEN, WIN);
        Buf local = res.buf(pdA, 64, LW).fill(77);

        other.a.postSend(write(1, mem.addr(0), key1, local.sge(0, 8)));
        expectOk(other.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertBytes(local.get(0, 8), mem, 0, "through the type 1 window from another QP of the PD");
        p.a.postSend(write(2, mem.addr(OFF), key2, local.sge(0, 8)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 2);
        assertBytes(local.get(0, 8), mem, OFF, "through the type 2 window from its own QP");

        other.a.postSend(write(3, mem.addr(OFF + 8), key2, local.sge(0, 8)));
        expectStatus(other.a.scq, WcStatus.REM_ACCESS_ERR, 3);
        assertFilled(mem, OFF + 8, 8, 0xee, "a type 2 window used from another QP");
    }

    /** An access that leaves the window fails with REM_ACCESS_ERR, even though the MR covers it. */
    @Test
    void type2WindowRefusesAccessOutside() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, WIN);
        Buf local = p.a.buf(64, LW).fill(73);
        p.a.postSend(write(1, mem.addr(OFF + LEN - 8), rkey, local.sge(0, 16)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 1);
        awaitState(p.a.qp, QpState.ERR);
        awaitState(p.b.qp, QpState.ERR);
        assertFilled(mem, 0, 16384, 0xee, "memory around a refused window access");
    }

    /** A read-only window refuses a WRITE. */
    @Test
    void windowRightsAreEnforced() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, Access.REMOTE_READ);
        Buf local = p.a.buf(64, LW);
        p.a.postSend(read(1, mem.addr(OFF), rkey, local.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.RDMA_READ, 1);
        p.a.postSend(write(2, mem.addr(OFF), rkey, local.sge(0, 16)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 2);
        assertFilled(mem, 0, 16384, 0xee, "memory behind a read-only window");
    }

    /** LOCAL_INV of the window's rkey kills it. */
    @Test
    void localInvalidateKillsType2Window() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, WIN);
        Buf local = p.a.buf(64, LW).fill(74);
        p.a.postSend(write(1, mem.addr(OFF), rkey, local.sge(0, 8)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);

        localInvalidate(p.b, rkey);
        // the invalidated window binds again, with another key, elsewhere
        int again = bindMw(p.b, mw, mem.mr, mem.addr(0), LEN, WIN);
        assertTrue(again != rkey, "a re-bind takes a new key");
        p.a.postSend(write(2, mem.addr(16), again, local.sge(0, 8)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 2);
        assertBytes(local.get(0, 8), mem, 16, "through the re-bound window");

        p.a.postSend(write(3, mem.addr(OFF + 8), rkey, local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 3);
        assertFilled(mem, OFF + 8, 8, 0xee, "after the window was invalidated");
    }

    /** SEND_WITH_INV from the peer kills the window; the receive reports the invalidated rkey. */
    @Test
    void sendWithInvalidateKillsType2Window() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, WIN);
        Buf rbuf = p.b.buf(64, LW);
        p.b.postRecv(9, rbuf.sge());
        Buf local = p.a.buf(64, LW).fill(75);
        p.a.postSend(wr(1, WrOpcode.SEND_WITH_INV, local.sge(0, 8)).invalidateRkey(rkey));
        expectOk(p.a.scq, WcOpcode.SEND, 1);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 9);
        assertTrue((r.wcFlags() & WcFlags.WITH_INVALIDATE) != 0, "WITH_INVALIDATE in " + Completions.describe(r));
        assertEquals(rkey, r.invalidateRkey());

        p.a.postSend(write(2, mem.addr(OFF), rkey, local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 2);
        assertFilled(mem, 0, 16384, 0xee, "memory behind an invalidated window");
    }

    /** A window must lie inside its MR: a bind past the MR's end completes with MW_BIND_ERR. */
    @Test
    void bindBeyondTheMrFails() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(8192, MR_ACCESS);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        p.b.postSend(bindWr(5, mw, mem.mr, mem.addr(4096), 8192, WIN, nextKey(mw.rkey())));
        expectStatus(p.b.scq, WcStatus.MW_BIND_ERR, 5);
        awaitState(p.b.qp, QpState.ERR);
    }

    /** Binding needs MW_BIND on the MR: without it the bind completes with MW_BIND_ERR. */
    @Test
    void bindNeedsMwBindOnTheMr() {
        QpPair p = QpPair.builder(res, org.jrdma.ib.core.QpType.RC).timeout(8).build();
        Buf mem = p.b.buf(16384, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_2);
        int before = mw.rkey();
        p.b.postSend(bindWr(5, mw, mem.mr, mem.addr(OFF), LEN, WIN, nextKey(before)));
        expectStatus(p.b.scq, WcStatus.MW_BIND_ERR, 5);
        awaitState(p.b.qp, QpState.ERR);
        Buf local = p.a.buf(64, LW);
        p.a.postSend(write(1, mem.addr(OFF), nextKey(before), local.sge(0, 8)));
        WorkCompletion wc = poll1(p.a.scq);
        assertFalse(wc.status() == WcStatus.SUCCESS, "a write through a window whose bind failed: "
                + Completions.describe(wc));
    }

    /** A type 1 window is bound (here with BIND_MW) and unbound by a zero-length bind. */
    @Test
    void type1BindAndZeroLengthUnbind() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS).fillByte(0xee);
        MemoryWindow mw = res.mw(p.b.pd, MwType.TYPE_1);
        assertEquals(MwType.TYPE_1, mw.type());
        int rkey = bindMw(p.b, mw, mem.mr, mem.addr(OFF), LEN, WIN);
        Buf local = p.a.buf(64, LW).fill(76);
        p.a.postSend(write(1, mem.addr(OFF), rkey, local.sge(0, 32)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertBytes(local.get(0, 32), mem, OFF, "written through the type 1 window");

        int unbound = bindMw(p.b, mw, mem.mr, mem.addr(OFF), 0, WIN);
        p.a.postSend(write(2, mem.addr(OFF + 32), unbound, local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 2);
        assertFilled(mem, OFF + 32, 8, 0xee, "after the zero-length unbind");
    }

    /** An MR with a bound window cannot be deregistered; once the window is gone it can. */
    @Test
    void mrWithBoundWindowCannotBeDeregistered() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(16384, MR_ACCESS);
        MemoryWindow mw2 = res.mw(p.b.pd, MwType.TYPE_2);
        int rkey = bindMw(p.b, mw2, mem.mr, mem.addr(OFF), LEN, WIN);
        assertVerbsFails(Errno.EBUSY, mem.mr::dereg);
        assertTrue(mem.mr.isValid(), "the MR survives a refused dereg");

        localInvalidate(p.b, rkey);
        MemoryWindow mw1 = res.mw(p.b.pd, MwType.TYPE_1);
        bindMw(p.b, mw1, mem.mr, mem.addr(0), 512, Access.REMOTE_READ);
        assertVerbsFails(Errno.EBUSY, mem.mr::dereg);
        mw1.dealloc();
        mem.mr.dereg();
        assertFalse(mem.mr.isValid());
    }
}
