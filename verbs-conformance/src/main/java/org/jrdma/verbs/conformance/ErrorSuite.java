package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Error completions and what follows them: RNR, remote access, invalid request and operation
 * errors (both QPs to ERR, the rest flushed), local protection errors, transport retries against
 * a peer that is gone, and post-time failures that name the bad work request.
 */
public abstract class ErrorSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int ALL_MR = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** A key that names nothing: the same index with another key byte. */
    static int badKey(int key) {
        return key ^ 0x80;
    }

    /**
     * After a class C error on an RC connection: both QPs in ERR, the requester's next WQEs and
     * the responder's posted receives flushed, and new posts flush too.
     */
    void assertBothInErrAndFlushing(QpPair p, Buf local, long nextWrId, long... bRecvs) {
        awaitState(p.a.qp, QpState.ERR);
        awaitState(p.b.qp, QpState.ERR);
        if (bRecvs.length > 0) {
            expectFlushed(p.b.rcq, bRecvs);
        }
        p.a.postSend(send(nextWrId, local.sge(0, 8)));
        expectFlushed(p.a.scq, nextWrId);
    }

    // ---------------------------------------------------------------- RNR

    /** No receive and rnr_retry 2: RNR_RETRY_EXC_ERR, the requester in ERR, the rest flushed. */
    @Test
    void rnrRetryExceeded() {
        QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(2).minRnrTimer(1).build();
        Buf src = p.a.buf(64, LW).fill(41);
        long t0 = System.nanoTime();
        p.a.postSend(chain(send(1, src.sge()), send(2, src.sge())));
        expectStatus(p.a.scq, WcStatus.RNR_RETRY_EXC_ERR, 1);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        expectFlushed(p.a.scq, 2);
        awaitState(p.a.qp, QpState.ERR);
        assertState(p.b.qp, QpState.RTS);
        expectNone(p.b.rcq, 10);
        assertTrue(ms < 5000, "3 RNR rounds of 0.01 ms took " + ms + " ms");
    }

    /** rnr_retry 7 waits for ever: the send completes once a receive is posted. */
    @Test
    void rnrRetryInfiniteWaitsForReceive() {
        QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(7).minRnrTimer(1).build();
        Buf src = p.a.buf(64, LW).fill(42);
        Buf dst = p.b.buf(64, LW);
        p.a.postSend(send(1, src.sge()));
        expectNone(p.a.scq, 200);
        assertState(p.a.qp, QpState.RTS);
        p.b.postRecv(5, dst.sge());
        expectOk(p.a.scq, WcOpcode.SEND, 1);
        expectOk(p.b.rcq, WcOpcode.RECV, 5);
        assertBytes(src.get(0, 64), dst, 0, "the send that waited on RNR");
    }

    // ---------------------------------------------------------------- remote access

    public enum RemoteAccess {
        WRITE_BAD_RKEY, WRITE_OUT_OF_BOUNDS, WRITE_MR_WITHOUT_REMOTE_WRITE, WRITE_MR_OF_ANOTHER_PD,
        WRITE_DEREGISTERED_MR, READ_BAD_RKEY, READ_OUT_OF_BOUNDS, READ_MR_WITHOUT_REMOTE_READ,
        ATOMIC_MR_WITHOUT_REMOTE_ATOMIC
    }

    /** REM_ACCESS_ERR on the requester; both QPs in ERR; nothing touched. */
    @ParameterizedTest
    @EnumSource(RemoteAccess.class)
    void remoteAccessError(RemoteAccess c) {
        QpPair p = QpPair.rc(res);
        int access = switch (c) {
            case WRITE_MR_WITHOUT_REMOTE_WRITE -> ALL_MR & ~Access.REMOTE_WRITE;
            case READ_MR_WITHOUT_REMOTE_READ -> ALL_MR & ~Access.REMOTE_READ;
            case ATOMIC_MR_WITHOUT_REMOTE_ATOMIC -> ALL_MR & ~Access.REMOTE_ATOMIC;
            default -> ALL_MR;
        };
        Buf target = c == RemoteAccess.WRITE_MR_OF_ANOTHER_PD
                ? res.buf(res.pd(p.b.dev), 4096, access) : p.b.buf(4096, access);
        target.fillByte(0xee);
        long base = target.addr(0);
        int key = target.rkey();
        if (c == RemoteAccess.WRITE_DEREGISTERED_MR) { // a second MR over the same memory, gone again
            org.jrdma.ib.core.MemoryRegion gone = res.mr(p.b.pd, target.bb.duplicate(), access);
            base = gone.iova();
            key = gone.rkey();
            gone.dereg();
        }
        Buf local = p.a.buf(4096, LW).fill(43);
        byte[] localBefore = local.get(0, 4096);
        Buf bRecv = p.b.buf(64, LW);
        p.b.postRecv(50, bRecv.sge());
        boolean badKey = c == RemoteAccess.WRITE_BAD_RKEY || c == RemoteAccess.READ_BAD_RKEY;
        boolean oob = c == RemoteAccess.WRITE_OUT_OF_BOUNDS || c == RemoteAccess.READ_OUT_OF_BOUNDS;
        int rkey = badKey ? badKey(key) : key;
        long addr = oob ? base + 4096 - 32 : base;
        SendWr bad = switch (c) {
            case READ_BAD_RKEY, READ_OUT_OF_BOUNDS, READ_MR_WITHOUT_REMOTE_READ -> read(1, addr, rkey, local.sge(0, 64));
            case ATOMIC_MR_WITHOUT_REMOTE_ATOMIC -> wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, local.sge(0, 8))
                    .remote(addr, rkey).compareAdd(1);
            default -> write(1, addr, rkey, local.sge(0, 64));
        };
        p.a.postSend(chain(bad.sendFlags(0), send(2, local.sge(0, 16)))); // an error completes even unsignaled

        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 1);
        expectFlushed(p.a.scq, 2);
        assertBothInErrAndFlushing(p, local, 3, 50);
        assertFilled(target, 0, 4096, 0xee, "the target of a refused access");
        assertBytes(localBefore, local, 0, "the local buffer of a refused access");
    }

    /** UC: the responder drops what it cannot accept; the requester completes, both QPs stay in RTS. */
    @Test
    void ucRemoteErrorsAreSilent() {
        QpPair p = QpPair.uc(res);
        Buf target = p.b.buf(4096, ALL_MR).fillByte(0xee);
        Buf local = p.a.buf(64, LW).fill(51);
        p.a.postSend(write(1, target.addr(0), badKey(target.rkey()), local.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        p.a.postSend(write(2, target.addr(4096 - 8), target.rkey(), local.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 2);
        assertFilled(target, 0, 4096, 0xee, "memory behind dropped UC writes");
        assertState(p.a.qp, QpState.RTS);
        assertState(p.b.qp, QpState.RTS);
        // a SEND with no receive posted is dropped too (no RNR on UC)
        Buf rbuf = p.b.buf(64, LW);
        p.a.postSend(send(3, local.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.SEND, 3);
        p.a.postSend(write(4, target.addr(8), target.rkey(), local.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 4);
        assertBytes(local.get(0, 16), target, 8, "a good UC write after the dropped ones");
        p.b.postRecv(5, rbuf.sge());
        p.a.postSend(send(6, local.sge(16, 16)));
        expectOk(p.a.scq, WcOpcode.SEND, 6);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 5);
        assertEquals(16, r.byteLen());
        assertBytes(local.get(16, 16), rbuf, 0, "the first SEND that found a receive");
    }

    /** After an error a connection is recovered by RESET and a new RESET-INIT-RTR-RTS. */
    @Test
    void qpRecoversThroughReset() {
        QpPair p = QpPair.rc(res);
        Buf target = p.b.buf(64, ALL_MR);
        Buf local = p.a.buf(64, LW).fill(52);
        p.a.postSend(write(1, target.addr(0), badKey(target.rkey()), local.sge()));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 1);
        awaitState(p.a.qp, QpState.ERR);
        awaitState(p.b.qp, QpState.ERR);
        p.a.qp.modify(new QpAttr().state(QpState.RESET));
        p.b.qp.modify(new QpAttr().state(QpState.RESET));
        p.reconnect();
        assertState(p.a.qp, QpState.RTS);
        p.b.postRecv(5, target.sge());
        p.a.postSend(send(2, local.sge()));
        expectOk(p.a.scq, WcOpcode.SEND, 2);
        expectOk(p.b.rcq, WcOpcode.RECV, 5);
        assertBytes(local.get(0, 64), target, 0, "after the reconnect");
        expectNone(p.a.scq, 10);
    }

    /**
     * A class C error hits the responder while its own send queue is busy (posted, and so perhaps
     * executed, by another thread): each of its WQEs still completes exactly once and in order
     * (successes, then flushes), never twice, never lost.
     */
    @Test
    void classCErrorWhileResponderIsSending() throws Exception {
        final int n = 64;
        final int size = 256 * 1024;
        java.util.concurrent.ExecutorService poster = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            classCErrorWhileResponderIsSending(n, size, poster);
        } finally {
            poster.shutdownNow();
        }
    }

    private void classCErrorWhileResponderIsSending(int n, int size, java.util.concurrent.ExecutorService poster)
            throws Exception {
        for (int it = 0; it < 20; it++) {
            QpPair p = QpPair.builder(res, QpType.RC).maxSendWr(n).cqe(4 * n).build();
            Buf bsrc = p.b.buf(size, LW);
            Buf adst = p.a.buf(size, ALL_MR);
            Buf target = p.b.buf(64, ALL_MR);
            Buf alocal = p.a.buf(64, LW);
            SendWr[] w = new SendWr[n];
            for (int i = 0; i < n; i++) {
                w[i] = write(i, adst.addr(0), adst.rkey(), bsrc.sge());
            }
            java.util.concurrent.Future<?> posted = poster.submit(() -> p.b.postSend(chain(w)));
            List<WorkCompletion> wcs = new ArrayList<>(poll(p.b.scq, 1)); // B's queue is being worked on now
            p.a.postSend(write(1000, target.addr(0), badKey(target.rkey()), alocal.sge(0, 8)));
            expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 1000);

            wcs.addAll(poll(p.b.scq, n - 1));
            posted.get(Completions.TIMEOUT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
            boolean flushing = false;
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                String where = "iteration " + it + ": completion " + i + " of "
                        + Completions.describe(wcs.subList(Math.max(0, i - 2), Math.min(n, i + 3)));
                assertEquals(i, wc.wrId(), where);
                flushing |= wc.status() == WcStatus.WR_FLUSH_ERR;
                assertEquals(flushing ? WcStatus.WR_FLUSH_ERR : WcStatus.SUCCESS, wc.status(), where);
            }
            expectNone(p.b.scq, 2);
            awaitState(p.a.qp, QpState.ERR);
            awaitState(p.b.qp, QpState.ERR);
            p.a.qp.destroy();
            p.b.qp.destroy();
        }
    }

    // ---------------------------------------------------------------- invalid request

    /** A receive too small for the SEND: REM_INV_REQ_ERR at the requester, LOC_LEN_ERR at the responder. */
    @Test
    void receiveBufferTooSmall() {
        QpPair p = QpPair.rc(res);
        Buf src = p.a.buf(200, LW).fill(44);
        Buf dst = p.b.buf(100, LW);
        p.b.postRecv(5, dst.sge());
        p.b.postRecv(6, dst.sge());
        p.a.postSend(send(1, src.sge()));
        expectStatus(p.a.scq, WcStatus.REM_INV_REQ_ERR, 1);
        expectStatus(p.b.rcq, WcStatus.LOC_LEN_ERR, 5);
        assertBothInErrAndFlushing(p, src, 2, 6);
    }

    public enum QpRight {
        REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC
    }

    /** The responder QP lacks the qp_access_flags bit for the operation: REM_INV_REQ_ERR. */
    @ParameterizedTest
    @EnumSource(QpRight.class)
    void responderQpWithoutAccessFlag(QpRight missing) {
        int qpAccess = Access.QP_ALL & ~switch (missing) {
            case REMOTE_READ -> Access.REMOTE_READ;
            case REMOTE_WRITE -> Access.REMOTE_WRITE;
            case REMOTE_ATOMIC -> Access.REMOTE_ATOMIC;
        };
        QpPair p = QpPair.builder(res, QpType.RC).accessB(qpAccess).build();
        Buf target = p.b.buf(4096, ALL_MR).fillByte(0xee);
        Buf local = p.a.buf(4096, LW).fill(45);
        SendWr w = switch (missing) {
            case REMOTE_READ -> read(1, target.addr(0), target.rkey(), local.sge(0, 64));
            case REMOTE_WRITE -> write(1, target.addr(0), target.rkey(), local.sge(0, 64));
            case REMOTE_ATOMIC -> wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, local.sge(0, 8))
                    .remote(target.addr(0), target.rkey()).compareAdd(1);
        };
        p.a.postSend(w);
        expectStatus(p.a.scq, WcStatus.REM_INV_REQ_ERR, 1);
        assertBothInErrAndFlushing(p, local, 2);
        assertFilled(target, 0, 4096, 0xee, "the target of a refused " + missing + " operation");
    }

    /** A responder with no responder resources (max_dest_rd_atomic 0) refuses READ and atomics: REM_INV_REQ_ERR. */
    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"RDMA_READ", "ATOMIC_FETCH_AND_ADD"})
    void noResponderResources(WrOpcode op) {
        QpPair p = QpPair.builder(res, QpType.RC).maxDestRdAtomicB(0).build();
        Buf target = p.b.buf(64, ALL_MR).putLong(0, 77);
        Buf local = p.a.buf(64, LW);
        SendWr w = op == WrOpcode.RDMA_READ ? read(1, target.addr(0), target.rkey(), local.sge(0, 64))
                : wr(1, op, local.sge(0, 8)).remote(target.addr(0), target.rkey()).compareAdd(1);
        p.a.postSend(w);
        expectStatus(p.a.scq, WcStatus.REM_INV_REQ_ERR, 1);
        assertBothInErrAndFlushing(p, local, 2);
        assertEquals(77, target.getLong(0), "the target");
    }

    // ---------------------------------------------------------------- remote operation

    /** The responder's receive WQE names a bad lkey: REM_OP_ERR at the requester, LOC_PROT_ERR at the responder. */
    @Test
    void responderReceiveWithBadLkey() {
        QpPair p = QpPair.rc(res);
        Buf src = p.a.buf(64, LW).fill(46);
        Buf dst = p.b.buf(64, LW);
        p.b.qp.postRecv(new RecvWr().wrId(5).sgList(new Sge(dst.addr(0), 64, badKey(dst.lkey()))));
        p.b.postRecv(6, dst.sge());
        p.a.postSend(send(1, src.sge()));
        expectStatus(p.a.scq, WcStatus.REM_OP_ERR, 1);
        expectStatus(p.b.rcq, WcStatus.LOC_PROT_ERR, 5);
        assertBothInErrAndFlushing(p, src, 2, 6);
    }

    // ---------------------------------------------------------------- local errors

    public enum LocalProt {
        SEND_BAD_LKEY, WRITE_BAD_LKEY, SEND_SGE_OUT_OF_BOUNDS, SEND_LKEY_OF_ANOTHER_PD,
        READ_INTO_MR_WITHOUT_LOCAL_WRITE
    }

    /** A bad local SGE: LOC_PROT_ERR, the requester in ERR, the responder untouched. */
    @ParameterizedTest
    @EnumSource(LocalProt.class)
    void localProtectionError(LocalProt c) {
        QpPair p = QpPair.rc(res);
        Buf local = c == LocalProt.READ_INTO_MR_WITHOUT_LOCAL_WRITE ? p.a.buf(4096, 0) : p.a.buf(4096, LW);
        local.fill(47);
        byte[] localBefore = local.get(0, 4096);
        Buf remote = p.b.buf(4096, ALL_MR).fillByte(0xee);
        Buf bRecv = p.b.buf(4096, LW).fillByte(0xee);
        p.b.postRecv(50, bRecv.sge());
        Sge bad = new Sge(local.addr(0), 64, badKey(local.lkey()));
        SendWr w = switch (c) {
            case SEND_BAD_LKEY -> send(1, bad);
            case WRITE_BAD_LKEY -> write(1, remote.addr(0), remote.rkey(), bad);
            case SEND_SGE_OUT_OF_BOUNDS -> send(1, local.sge(4000, 200));
            case SEND_LKEY_OF_ANOTHER_PD -> send(1, res.buf(res.pd(p.a.dev), 64, LW).sge());
            case READ_INTO_MR_WITHOUT_LOCAL_WRITE -> read(1, remote.addr(0), remote.rkey(), local.sge(0, 64));
        };
        p.a.postSend(chain(w.sendFlags(0), send(2, local.sge(0, 8))));
        expectStatus(p.a.scq, WcStatus.LOC_PROT_ERR, 1);
        expectFlushed(p.a.scq, 2);
        awaitState(p.a.qp, QpState.ERR);
        assertState(p.b.qp, QpState.RTS);
        expectNone(p.b.rcq, 20);
        assertFilled(remote, 0, 4096, 0xee, "remote memory");
        assertFilled(bRecv, 0, 4096, 0xee, "the responder's receive buffer");
        assertBytes(localBefore, local, 0, "local memory");
    }

    // ---------------------------------------------------------------- transport retries

    public enum DeadPeer {
        DESTROYED, RESET
    }

    /**
     * Nobody answers (the peer QP destroyed or in RESET): RETRY_EXC_ERR after retry_cnt local ACK
     * timeouts, never a hang; the requester in ERR.
     */
    @ParameterizedTest
    @EnumSource(DeadPeer.class)
    void retryExceededWhenPeerIsGone(DeadPeer how) {
        // 6, the largest finite retry_cnt everywhere: Linux rxe (and jrdma hw-rxe) retry forever at 7
        QpPair p = QpPair.builder(res, QpType.RC).timeout(8).retryCnt(6).build();
        Buf src = p.a.buf(64, LW).fill(48);
        if (how == DeadPeer.DESTROYED) {
            p.b.qp.destroy();
        } else {
            p.b.qp.modify(new QpAttr().state(QpState.RESET));
        }
        long t0 = System.nanoTime();
        p.a.postSend(chain(send(1, src.sge()), send(2, src.sge())));
        expectStatus(p.a.scq, WcStatus.RETRY_EXC_ERR, 1);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        expectFlushed(p.a.scq, 2);
        awaitState(p.a.qp, QpState.ERR);
        assertTrue(ms < 5000, "7 tries with a 1 ms ACK timeout took " + ms + " ms");
    }

    // ---------------------------------------------------------------- post-time failures

    /** A chain whose third WR has too many SGEs: bad_wr is the third, the first two run. */
    @Test
    void badWrIsTheFirstWrNotPosted() {
        QpPair p = QpPair.builder(res, QpType.RC).maxSge(2).build();
        int maxSge = p.a.qp.cap().maxSendSge();
        Buf src = p.a.buf(4096, LW).fill(49);
        Buf dst = p.b.buf(3 * 4096, LW);
        for (int i = 0; i < 3; i++) {
            p.b.postRecv(100 + i, dst.sge(4096 * i, 4096));
        }
        Sge[] many = new Sge[maxSge + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = src.sge(i, 1);
        }
        SendWr w1 = send(1, src.sge(0, 10));
        SendWr w2 = send(2, src.sge(10, 20));
        SendWr w3 = send(3, many);
        SendWr w4 = send(4, src.sge(0, 1));
        PostException e = assertPostFails(Errno.EINVAL, () -> p.a.postSend(chain(w1, w2, w3, w4)));
        assertSame(w3, e.badSendWr(), "bad_wr: " + e.getMessage());

        List<WorkCompletion> sent = poll(p.a.scq, 2);
        assertOk(sent.get(0), WcOpcode.SEND, 1);
        assertOk(sent.get(1), WcOpcode.SEND, 2);
        List<WorkCompletion> recv = poll(p.b.rcq, 2);
        assertOk(recv.get(0), WcOpcode.RECV, 100);
        assertEquals(10, recv.get(0).byteLen());
        assertOk(recv.get(1), WcOpcode.RECV, 101);
        assertEquals(20, recv.get(1).byteLen());
        expectNone(p.b.rcq, 30);
        expectNone(p.a.scq, 1);
    }

    /** A receive with more SGEs than max_recv_sge: EINVAL naming it; the one before is posted. */
    @Test
    void receiveWithTooManySgesIsRefused() {
        QpPair p = QpPair.builder(res, QpType.RC).maxSge(1).build();
        int maxSge = p.b.qp.cap().maxRecvSge();
        Buf dst = p.b.buf(4096, LW);
        Sge[] many = new Sge[maxSge + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = dst.sge(64 * i, 64);
        }
        RecvWr ok = new RecvWr().wrId(1).sgList(dst.sge(0, 64));
        RecvWr bad = new RecvWr().wrId(2).sgList(many);
        PostException e = assertPostFails(Errno.EINVAL, () -> p.b.qp.postRecv(ok.next(bad)));
        assertSame(bad, e.badRecvWr(), "bad_wr: " + e.getMessage());
        Buf src = p.a.buf(8, LW);
        p.a.postSend(send(3, src.sge()));
        expectOk(p.b.rcq, WcOpcode.RECV, 1);
        expectOk(p.a.scq, WcOpcode.SEND, 3);
    }

    /** More outstanding sends than max_send_wr: ENOMEM naming the first that did not fit. */
    @Test
    void sendQueueOverflowIsEnomem() {
        QpPair p = QpPair.builder(res, QpType.RC).maxSendWr(4).rnrRetry(7).minRnrTimer(1).build();
        int depth = p.a.qp.cap().maxSendWr();
        Buf src = p.a.buf(64, LW).fill(50);
        Buf dst = p.b.buf(64 * depth, LW);
        SendWr[] w = new SendWr[depth + 1];
        for (int i = 0; i <= depth; i++) {
            w[i] = send(i, src.sge(0, 8));
        }
        // B has no receive yet: the first send waits on RNR and nothing leaves the send queue
        PostException e = assertPostFails(Errno.ENOMEM, () -> p.a.postSend(chain(w)));
        assertSame(w[depth], e.badSendWr(), "bad_wr: " + e.getMessage());
        expectNone(p.a.scq, 30);
        for (int i = 0; i < depth; i++) {
            p.b.postRecv(100 + i, dst.sge(64 * i, 64));
        }
        List<WorkCompletion> sent = poll(p.a.scq, depth);
        for (int i = 0; i < depth; i++) {
            assertOk(sent.get(i), WcOpcode.SEND, i);
        }
        poll(p.b.rcq, depth);
        expectNone(p.b.rcq, 20);
    }

    /** More receives than max_recv_wr: ENOMEM naming the first that did not fit. */
    @Test
    void receiveQueueOverflowIsEnomem() {
        QpPair p = QpPair.builder(res, QpType.RC).maxRecvWr(4).build();
        int depth = p.b.qp.cap().maxRecvWr();
        Buf dst = p.b.buf(64, LW);
        RecvWr[] r = new RecvWr[depth + 1];
        for (int i = 0; i <= depth; i++) {
            r[i] = new RecvWr().wrId(100 + i).sgList(dst.sge());
            if (i > 0) {
                r[i - 1].next(r[i]);
            }
        }
        PostException e = assertPostFails(Errno.ENOMEM, () -> p.b.qp.postRecv(r[0]));
        assertSame(r[depth], e.badRecvWr(), "bad_wr: " + e.getMessage());
        Buf src = p.a.buf(8, LW);
        for (int i = 0; i < depth; i++) {
            p.a.postSend(send(i, src.sge()));
        }
        List<WorkCompletion> recv = poll(p.b.rcq, depth);
        for (int i = 0; i < depth; i++) {
            assertOk(recv.get(i), WcOpcode.RECV, 100 + i);
        }
        poll(p.a.scq, depth);
    }
}
