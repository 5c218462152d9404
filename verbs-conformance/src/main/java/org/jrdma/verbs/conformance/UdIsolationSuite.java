package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SignalType;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * UD keys as properties (issue 17), at the level the verbs reach (forged P_Keys and Q_Keys on the wire are
 * hw-rxe's RxeForgedIsolationTest): bursts of datagrams with random Q_Keys, some right, each followed by a marker
 * with the right one; exactly the right ones arrive, in order, byte-exact, and the others are dropped without a
 * completion anywhere and without using up a receive. And a QP cannot be given a P_Key index outside its port's
 * table (rxe's {@code rxe_qp_chk_attr}: EINVAL). The seed is printed with a failure.
 */
public abstract class UdIsolationSuite extends VerbsSuite {
    static final int GRH = SendIsolationSuite.GRH;
    static final int SLOT = GRH + 16;
    static final int RECVS = 32;

    @Override
    protected abstract VerbsTestBed newTestBed();

    protected int rounds() {
        return 300;
    }

    /** Whether the driver counts Q_Key violations in the port's qkey_viol_cntr (rxe's {@code check_keys} does). */
    protected boolean countsQkeyViolations() {
        return false;
    }

    @Test
    void onlyDatagramsWithTheRightQkeyArrive() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        QpPair p = QpPair.ud(res);
        Buf src = p.a.buf(16 * 8, Access.LOCAL_WRITE);
        Buf dst = p.b.buf(SLOT * RECVS, Access.LOCAL_WRITE);
        for (int i = 0; i < RECVS; i++) {
            p.b.qp.postRecv(new RecvWr().wrId(i).sgList(dst.sge(i * SLOT, SLOT)));
        }
        int viol0 = p.b.dev.queryPort(p.b.port).qkeyViolCntr();
        long wrId = 0;
        int right = 0;
        int wrong = 0;
        for (int round = 0; round < rounds(); round++) {
            int n = 1 + r.nextInt(6);
            List<Integer> expected = new ArrayList<>();
            src.fill(r.nextLong());
            for (int i = 0; i <= n; i++) {
                boolean marker = i == n;
                int k = r.nextInt(4);
                int qkey = marker || k == 0 ? p.qkey
                        : k == 1 ? p.qkey ^ (1 << r.nextInt(31)) : r.nextInt() & 0x7fffffff;
                qkey = qkey == p.qkey && !marker && k != 0 ? qkey ^ 1 : qkey;
                p.a.postSend(send(++wrId, src.sge(i * 16, 16)).ud(p.a.ahToPeer(), p.b.qp.qpNum(), qkey));
                expectOk(p.a.scq, WcOpcode.SEND, wrId); // the sender never hears of a drop
                if (qkey == p.qkey) {
                    expected.add(i);
                }
            }
            right += expected.size() - 1;
            wrong += n + 1 - expected.size();
            try {
                for (int i : expected) {
                    WorkCompletion wc = poll1(p.b.rcq);
                    int slot = (int) wc.wrId();
                    assertOk(wc, WcOpcode.RECV, slot);
                    assertEquals(GRH + 16, wc.byteLen(), "byte_len");
                    assertBytes(src.get(i * 16, 16), dst, slot * SLOT + GRH, "datagram " + i + " of " + (n + 1));
                    p.b.qp.postRecv(new RecvWr().wrId(slot).sgList(dst.sge(slot * SLOT, SLOT)));
                }
            } catch (AssertionError e) {
                fail("round " + round + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        expectNone(p.b.rcq, 20);
        assertState(p.b.qp, QpState.RTS);
        int viol = p.b.dev.queryPort(p.b.port).qkeyViolCntr() - viol0;
        assertEquals(countsQkeyViolations() ? Math.min(wrong, 0xffff - viol0) : 0, viol,
                "qkey_viol_cntr of the receiving port (seed " + seed + ")");
        if (right < rounds() / 4 || wrong < rounds()) {
            fail(right + " right and " + wrong + " wrong Q_Keys (seed " + seed + ")");
        }
    }

    /** {@code IB_QP1_QKEY}: the GSI QP's Q_Key, a controlled one (high bit set). */
    static final int GSI_QKEY = 0x80010000;

    /** Who sends one datagram of {@link #onlyTheGsiQkeyReachesQp1} and with which Q_Key in the WR. */
    private record Gsend(QueuePair from, int qkey, boolean arrives, String what) {
    }

    /**
     * The GSI QP (QP1) of B, created through the verbs with Q_Key {@link #GSI_QKEY}, against random datagrams to QPN
     * 1. From A's ordinary UD QP (its own Q_Key {@code p.qkey}): a wrong Q_Key in the WR, or a random controlled one,
     * or the GSI Q_Key itself, which the sending HCA replaces with the QP's own (C10-15: a WR Q_Key with the high bit
     * set means "use the QP's"): all dropped, no completion, no receive used, counted in qkey_viol_cntr where the
     * driver counts. Only what carries the GSI Q_Key arrives: from A's GSI QP, or from a UD QP whose own Q_Key is the
     * GSI one, each with the controlled key in its WR; byte-exact, src_qp and SLID the sender's, in any order the
     * wire gives.
     */
    @Test
    void onlyTheGsiQkeyReachesQp1() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        QpPair p = QpPair.ud(res);
        CompletionQueue gsiRcq = res.cq(p.b.dev, 2 * RECVS, new EventLog());
        QueuePair gsiB = QpPair.special(p.b, QpType.GSI, gsiRcq, GSI_QKEY);
        QueuePair gsiA = QpPair.special(p.a, QpType.GSI, res.cq(p.a.dev, 16, new EventLog()), GSI_QKEY);
        QueuePair privA = res.qp(p.a.pd, new QpInitAttr().qpType(QpType.UD).sendCq(p.a.scq).recvCq(p.a.rcq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)).sqSigType(SignalType.REQ_WR));
        privA.modify(QpPair.initAttr(QpType.UD, p.a.port, 0, GSI_QKEY));
        privA.modify(QpPair.rtrAttr(QpType.UD, null, null, 0, 0, 0, 0));
        privA.modify(QpPair.rtsAttr(QpType.UD, 0, 0, 0, 0, 0));
        Buf src = p.a.buf(16 * 8, Access.LOCAL_WRITE);
        Buf dst = p.b.buf(SLOT * RECVS, Access.LOCAL_WRITE);
        for (int i = 0; i < 16; i++) { // QpPair.special's receive queue; a round needs at most 7
            gsiB.postRecv(new RecvWr().wrId(i).sgList(dst.sge(i * SLOT, SLOT)));
        }
        p.b.qp.postRecv(new RecvWr().wrId(999).sgList(dst.sge(0, SLOT)));
        int slidA = p.a.dev.queryPort(p.a.port).lid();
        int viol0 = p.b.dev.queryPort(p.b.port).qkeyViolCntr();
        org.jrdma.ib.core.AddressHandle ah = p.a.ahToPeer();
        long wrId = 0;
        int right = 0;
        int wrong = 0;
        for (int round = 0; round < rounds() / 3; round++) {
            int n = 1 + r.nextInt(6);
            src.fill(r.nextLong());
            java.util.Map<Integer, Gsend> expected = new java.util.HashMap<>();
            for (int i = 0; i <= n; i++) {
                Gsend g = i == n ? new Gsend(gsiA, GSI_QKEY, true, "marker") : gsend(p, gsiA, privA, r);
                g.from.postSend(send(++wrId, src.sge(i * 16, 16)).ud(ah, 1, g.qkey));
                expectOk(p.a.scq, WcOpcode.SEND, wrId); // the sender never hears of a drop
                if (g.arrives) {
                    expected.put(i, g);
                } else {
                    wrong++;
                }
            }
            right += expected.size() - 1;
            try {
                for (int k = expected.size(); k > 0; k--) {
                    WorkCompletion wc = poll1(gsiRcq);
                    int slot = (int) wc.wrId();
                    assertOk(wc, WcOpcode.RECV, slot);
                    assertEquals(GRH + 16, wc.byteLen(), "byte_len");
                    int i = datagram(src, dst.get(slot * SLOT + GRH, 16), n);
                    Gsend g = expected.remove(i);
                    if (g == null) {
                        fail("datagram " + i + " of " + (n + 1) + " arrived: " + Completions.describe(wc));
                    }
                    assertEquals(g.from.qpNum(), wc.srcQp(), "src_qp of " + g.what);
                    assertEquals(slidA, wc.slid(), "slid of " + g.what);
                    gsiB.postRecv(new RecvWr().wrId(slot).sgList(dst.sge(slot * SLOT, SLOT)));
                }
            } catch (AssertionError e) {
                fail("GSI round " + round + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        expectNone(gsiRcq, 20);
        expectNone(p.b.rcq, 5);
        assertState(gsiB, QpState.RTS);
        int viol = p.b.dev.queryPort(p.b.port).qkeyViolCntr() - viol0;
        assertEquals(countsQkeyViolations() ? Math.min(wrong, 0xffff - viol0) : 0, viol,
                "qkey_viol_cntr of the receiving port (seed " + seed + ")");
        if (right < rounds() / 12 || wrong < rounds() / 3) {
            fail(right + " right and " + wrong + " wrong Q_Keys to QP1 (seed " + seed + ")");
        }
    }

    /** One random datagram to QP1 other than the marker. */
    private static Gsend gsend(QpPair p, QueuePair gsiA, QueuePair privA, Random r) {
        switch (r.nextInt(6)) {
            case 0:
                return new Gsend(p.a.qp, GSI_QKEY, false, "the GSI Q_Key in a UD QP's WR (its own Q_Key is used)");
            case 1:
                return new Gsend(p.a.qp, GSI_QKEY & 0x7fffffff, false, "the GSI Q_Key without its high bit");
            case 2:
                return new Gsend(p.a.qp, r.nextInt() | 0x80000000, false, "a random controlled Q_Key in the WR");
            case 3:
                return new Gsend(p.a.qp, (r.nextInt() & 0x7fffffff) | 1, false, "a random Q_Key");
            case 4:
                return new Gsend(gsiA, GSI_QKEY, true, "A's GSI QP");
            default:
                return new Gsend(privA, GSI_QKEY, true, "a UD QP whose own Q_Key is the GSI one");
        }
    }

    /** Which of the round's datagrams (16-byte slices of {@code src}) {@code got} is; -1 if none. */
    private static int datagram(Buf src, byte[] got, int n) {
        for (int i = 0; i <= n; i++) {
            if (java.util.Arrays.equals(src.get(i * 16, 16), got)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void pkeyIndexOutsideThePortsTableIsEinval() {
        QpPair p = QpPair.builder(res, QpType.UD).connect(false).build();
        int len = p.b.dev.queryPort(p.b.port).pkeyTblLen();
        assertEquals(0xffff, p.b.dev.queryPkey(p.b.port, 0) | 0x8000, "the default P_Key at index 0");
        assertVerbsFails(Errno.EINVAL, () -> p.b.qp.modify(QpPair.initAttr(QpType.UD, p.b.port, 0, p.qkey)
                .pkeyIndex(len)));
        assertState(p.b.qp, QpState.RESET);
    }
}
