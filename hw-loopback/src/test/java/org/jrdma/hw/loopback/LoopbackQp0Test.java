package org.jrdma.hw.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.verbs.conformance.Buf;
import org.jrdma.verbs.conformance.EventLog;
import org.jrdma.verbs.conformance.QpPair;
import org.jrdma.verbs.conformance.VerbsSuite;
import org.jrdma.verbs.conformance.VerbsTestBed;
import org.junit.jupiter.api.Test;

/**
 * QP0 isolation (issue 17): only QP0 sends on VL15 and a port takes QP0 packets only on VL15 (IBA 13.5.3.1), so an
 * ordinary UD QP or the GSI QP never reaches another port's SMI QP, and an SMI send to any QPN but 0 reaches
 * nobody. Each such drop counts once in the receiving port's {@code port_rcv_errors}; QP0 to QP0 arrives.
 */
class LoopbackQp0Test extends VerbsSuite {
    static final int MAD = 256;
    static final int SLOT = 40 + MAD;
    static final int LW = Access.LOCAL_WRITE;

    @Override
    protected VerbsTestBed newTestBed() {
        return LoopbackTestBed.twoDevices();
    }

    private static long rcvErrors(org.jrdma.verbs.conformance.Side s) {
        return s.dev.queryHwStats(s.port).get(LoopbackDevice.PORT_RCV_ERRORS);
    }

    @Test
    void onlyQp0ReachesQp0AndQp0OnlyQp0() {
        QpPair p = QpPair.ud(res);
        CompletionQueue smiRcqB = res.cq(p.b.dev, 16, new EventLog());
        CompletionQueue gsiRcqA = res.cq(p.a.dev, 16, new EventLog());
        CompletionQueue smiRcqA = res.cq(p.a.dev, 16, new EventLog());
        QueuePair smiB = QpPair.special(p.b, QpType.SMI, smiRcqB, 0);
        QueuePair smiA = QpPair.special(p.a, QpType.SMI, smiRcqA, 0);
        QueuePair gsiA = QpPair.special(p.a, QpType.GSI, gsiRcqA, 0x80010000);
        Buf src = p.a.buf(MAD, LW).fill(0x51);
        Buf dst = p.b.buf(SLOT * 4, LW);
        for (int i = 0; i < 4; i++) {
            smiB.postRecv(new RecvWr().wrId(i).sgList(dst.sge(i * SLOT, SLOT)));
        }
        p.b.qp.postRecv(new RecvWr().wrId(9).sgList(dst.sge(0, SLOT)));
        long before = rcvErrors(p.b);
        long beforeA = rcvErrors(p.a);

        p.a.postSend(send(1, src.sge(0, MAD)).ud(p.a.ahToPeer(), 0, 0));
        expectOk(p.a.scq, WcOpcode.SEND, 1); // the sender never hears of it
        expectNone(smiRcqB, 20);
        assertEquals(before + 1, rcvErrors(p.b), "port_rcv_errors after a UD QP's send to QPN 0");

        gsiA.postSend(send(2, src.sge(0, MAD)).ud(p.a.ahToPeer(), 0, 0));
        expectOk(p.a.scq, WcOpcode.SEND, 2);
        expectNone(smiRcqB, 20);
        assertEquals(before + 2, rcvErrors(p.b), "port_rcv_errors after the GSI QP's send to QPN 0");

        // VL15 to a data QP: the SMI send to B's UD QP (right Q_Key) is dropped as well
        smiA.postSend(send(3, src.sge(0, MAD)).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey));
        expectOk(p.a.scq, WcOpcode.SEND, 3);
        expectNone(p.b.rcq, 20);
        assertEquals(before + 3, rcvErrors(p.b), "port_rcv_errors after QP0's send to a UD QP");

        // QP0 to QP0 arrives, byte-exact, from QPN 0
        smiA.postSend(send(4, src.sge(0, MAD)).ud(p.a.ahToPeer(), 0, 0));
        expectOk(p.a.scq, WcOpcode.SEND, 4);
        WorkCompletion wc = expectOk(smiRcqB, WcOpcode.RECV, 0);
        assertEquals(0, wc.srcQp(), "src_qp");
        assertEquals(40 + MAD, wc.byteLen(), "byte_len");
        assertBytes(src.get(0, MAD), dst, 40, "the SMP at QP0 of B");
        expectNone(smiRcqB, 10);
        assertEquals(before + 3, rcvErrors(p.b), "port_rcv_errors after QP0 to QP0");
        assertEquals(beforeA, rcvErrors(p.a), "port_rcv_errors of the sending port");
    }
}
