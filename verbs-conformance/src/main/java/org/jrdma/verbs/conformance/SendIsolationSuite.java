package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * SEND isolation as a property (issue 17): random message lengths (0 to twice the posted receive), gathered from
 * random SGE lists, into receives with random SGE lists and canary bytes between the SGEs. A message that fits lands
 * byte-exact and nothing else changes. One that does not fit: on RC the sender REM_INV_REQ_ERR and the receive
 * LOC_LEN_ERR (class C, both QPs to ERR); on UC and UD the receive LOC_LEN_ERR, the sender SUCCESS, the QPs stay in
 * RTS and the next message lands whole. Either way no byte outside the SGEs changes (a failed message may have filled
 * a prefix of them). Linux rxe ({@code rxe_resp.c}, RESPST_ERR_LENGTH) differs in the receive's status: an RC receive
 * completes REM_INV_REQ_ERR (the class C status), a UC/UD message without SRQ is dropped with the receive left
 * posted (class D, {@code drop_msg}); jrdma completes the receive LOC_LEN_ERR in all three (the IBTA's local length
 * error), as hw-rxe's NOTES record. With an SRQ: RC the same, UC and UD REM_INV_REQ_ERR (rxe's class E). The seed
 * is printed with a failure ({@code -Djrdma.isolation.seed=N}).
 */
public abstract class SendIsolationSuite extends VerbsSuite {
    static final int GRH = 40;
    static final int MAX_SGE = 4;
    static final int RC_MAX_RECV = 8192;
    static final int LW = Access.LOCAL_WRITE;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** Random cases per test. */
    protected int cases() {
        return 1000;
    }

    static long seed() {
        return Long.getLong("jrdma.isolation.seed", System.nanoTime());
    }

    @Test
    void randomRcSendsNeverWritePastTheReceiveSges() {
        connectedSends(QpType.RC, false);
    }

    /** UC: a message too long for its receive completes it LOC_LEN_ERR (class D); the sender and the QPs go on. */
    @Test
    void randomUcSendsNeverWritePastTheReceiveSges() {
        connectedSends(QpType.UC, false);
    }

    @Test
    void randomRcSendsIntoAnSrq() {
        connectedSends(QpType.RC, true);
    }

    /** UC with an SRQ: a message too long completes the receive REM_INV_REQ_ERR (class E, as rxe). */
    @Test
    void randomUcSendsIntoAnSrq() {
        connectedSends(QpType.UC, true);
    }

    /** A pair of {@code type} whose B side takes its receives from an SRQ when {@code srq}. */
    private QpPair pair(QpType type, boolean srq) {
        QpPair.Builder b = QpPair.builder(res, type).maxSge(MAX_SGE);
        if (srq) {
            ProtectionDomain pdB = res.pd(res.bed().b());
            b.pds(null, pdB).srqB(res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(16).maxSge(MAX_SGE))));
        }
        return b.build();
    }

    /** The status of a receive a message did not fit: LOC_LEN_ERR, or on UC/UD with an SRQ REM_INV_REQ_ERR. */
    static WcStatus tooLong(QpType type, SharedReceiveQueue srq) {
        return srq != null && type != QpType.RC ? WcStatus.REM_INV_REQ_ERR : WcStatus.LOC_LEN_ERR;
    }

    static void postRecv(QpPair p, RecvWr wr) {
        if (p.srqB() != null) {
            p.srqB().postRecv(wr);
        } else {
            p.b.qp.postRecv(wr);
        }
    }

    private void connectedSends(QpType type, boolean srq) {
        long seed = seed();
        Random r = new Random(seed);
        QpPair p = pair(type, srq);
        Buf src = p.a.buf(2 * RC_MAX_RECV + 64, LW).fill(seed);
        Buf dst = p.b.buf(CanaryScatter.bufferSize(MAX_SGE, RC_MAX_RECV), LW);
        int fits = 0;
        for (int c = 0; c < cases(); c++) {
            try {
                fits += connectedCase(p, src, dst, r, c) ? 1 : 0;
            } catch (AssertionError e) {
                fail(type + " SEND case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        assertMix(fits, seed);
    }

    private boolean connectedCase(QpPair p, Buf src, Buf dst, Random r, int c) {
        CanaryScatter sc = CanaryScatter.random(dst, r, MAX_SGE, RC_MAX_RECV);
        int len = r.nextInt(2 * sc.total + 2);
        int srcOff = r.nextInt(64);
        postRecv(p, sc.recvWr(c));
        p.a.postSend(send(c, gather(src, srcOff, len, r)));
        byte[] msg = src.get(srcOff, len);
        boolean fits = len <= sc.total;
        String what = "SEND of " + len + " into " + sc;
        WorkCompletion sent = poll1(p.a.scq);
        WorkCompletion recv = poll1(p.b.rcq);
        if (fits) {
            assertOk(sent, WcOpcode.SEND, c);
            assertOk(recv, WcOpcode.RECV, c);
            assertEquals(len, recv.byteLen(), "byte_len of " + what);
        } else if (p.type == QpType.UC) {
            assertOk(sent, WcOpcode.SEND, c); // UC: the sender never hears of it
            assertStatus(recv, tooLong(p.type, p.srqB()), c);
        } else {
            assertStatus(sent, WcStatus.REM_INV_REQ_ERR, c);
            assertStatus(recv, WcStatus.LOC_LEN_ERR, c);
        }
        sc.check(msg, fits, 0, what);
        if (p.type == QpType.UC) {
            assertState(p.a.qp, QpState.RTS);
            assertState(p.b.qp, QpState.RTS);
        } else if (!fits) {
            awaitState(p.a.qp, QpState.ERR);
            awaitState(p.b.qp, QpState.ERR);
            p.a.qp.modify(new QpAttr().state(QpState.RESET));
            p.b.qp.modify(new QpAttr().state(QpState.RESET));
            p.reconnect(r.nextInt(), r.nextInt());
        }
        return fits;
    }

    @Test
    void randomUdDatagramsNeverOverflowTheReceive() {
        udSends(false);
    }

    /** UD with an SRQ: a datagram too long completes the receive REM_INV_REQ_ERR (class E, as rxe). */
    @Test
    void randomUdDatagramsIntoAnSrq() {
        udSends(true);
    }

    private void udSends(boolean srq) {
        long seed = seed();
        Random r = new Random(seed);
        QpPair p = pair(QpType.UD, srq);
        int mtu = p.mtu.bytes();
        Buf src = p.a.buf(mtu + 64, LW).fill(seed);
        Buf dst = p.b.buf(CanaryScatter.bufferSize(MAX_SGE, GRH + mtu + 64), LW);
        int fits = 0;
        for (int c = 0; c < cases(); c++) {
            try {
                fits += udCase(p, src, dst, mtu, r, c) ? 1 : 0;
            } catch (AssertionError e) {
                fail("UD SEND case " + c + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        assertMix(fits, seed);
    }

    private boolean udCase(QpPair p, Buf src, Buf dst, int mtu, Random r, int c) {
        CanaryScatter sc = CanaryScatter.random(dst, r, MAX_SGE, GRH + mtu + 64);
        int len = Math.min(mtu, r.nextInt(2 * Math.max(sc.total - GRH, 32) + 1));
        int srcOff = r.nextInt(64);
        postRecv(p, sc.recvWr(c));
        p.a.postSend(send(c, gather(src, srcOff, len, r)).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey));
        boolean fits = GRH + len <= sc.total;
        String what = "UD SEND of " + len + " into " + sc;
        expectOk(p.a.scq, WcOpcode.SEND, c); // the sender never hears of the receiver's trouble
        WorkCompletion recv = poll1(p.b.rcq);
        byte[] stream = new byte[GRH + (fits ? len : 0)];
        if (fits) {
            assertOk(recv, WcOpcode.RECV, c);
            assertEquals(GRH + len, recv.byteLen(), "byte_len of " + what);
            System.arraycopy(src.get(srcOff, len), 0, stream, GRH, len);
        } else {
            assertStatus(recv, tooLong(QpType.UD, p.srqB()), c);
        }
        // the GRH room is the driver's to fill; after it the payload exactly, or nothing at all
        sc.check(stream, true, GRH, what);
        assertState(p.b.qp, QpState.RTS);
        return fits;
    }

    /** {@code len} bytes of {@code src} from {@code off} as 0 to 3 SGEs (no SGE at all only for an empty message). */
    static Sge[] gather(Buf src, int off, int len, Random r) {
        int n = len == 0 && r.nextBoolean() ? 0 : 1 + r.nextInt(3);
        List<Sge> out = new ArrayList<>();
        int at = off;
        for (int i = 0; i < n; i++) {
            int l = i == n - 1 ? off + len - at : r.nextInt(off + len - at + 1);
            out.add(src.sge(at, l));
            at += l;
        }
        return out.toArray(new Sge[0]);
    }

    private void assertMix(int fits, long seed) {
        int n = cases();
        if (fits < n / 5 || fits > n * 4 / 5) {
            fail(fits + " of " + n + " messages fit their receive (seed " + seed + ")");
        }
    }
}
