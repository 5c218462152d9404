package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.jrdma.ib.core.Access;
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
