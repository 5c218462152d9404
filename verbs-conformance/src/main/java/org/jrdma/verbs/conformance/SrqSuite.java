package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/** Shared receive queues: sharing, the limit event, the size limit. */
public abstract class SrqSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int SLOT = 256;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** Two RC pairs whose B QPs share one SRQ (and B's PD). */
    QpPair[] twoPairs(SharedReceiveQueue srq, ProtectionDomain pdA, ProtectionDomain pdB) {
        return new QpPair[] {
            QpPair.builder(res, QpType.RC).pds(pdA, pdB).srqB(srq).build(),
            QpPair.builder(res, QpType.RC).pds(pdA, pdB).srqB(srq).build()};
    }

    static void postSrq(SharedReceiveQueue srq, Buf buf, int first, int count) {
        for (int i = first; i < first + count; i++) {
            srq.postRecv(new RecvWr().wrId(i).sgList(buf.sge(SLOT * i, SLOT)));
        }
    }

    /** Two QPs receive from one SRQ; each completion names its QP; the data is in the WQE's buffer. */
    @Test
    void twoQpsShareOneSrq() {
        ProtectionDomain pdA = res.pd(res.bed().a());
        ProtectionDomain pdB = res.pd(res.bed().b());
        SharedReceiveQueue srq = res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(16).maxSge(1)));
        QpPair[] p = twoPairs(srq, pdA, pdB);
        Buf bufB = res.buf(pdB, SLOT * 8, LW);
        postSrq(srq, bufB, 0, 4);
        Buf src = res.buf(pdA, 4 * 100, LW).fill(61);

        Set<Long> used = new HashSet<>();
        for (int m = 0; m < 4; m++) {
            QpPair pair = p[m % 2];
            pair.a.postSend(send(m, src.sge(100 * m, 100)));
            expectOk(pair.a.scq, WcOpcode.SEND, m);
            WorkCompletion wc = poll1(pair.b.rcq);
            assertOk(wc, WcOpcode.RECV, wc.wrId());
            assertEquals(pair.b.qp.qpNum(), wc.qpNum(), "qp_num of a receive taken from the SRQ");
            assertEquals(100, wc.byteLen());
            assertTrue(wc.wrId() >= 0 && wc.wrId() < 4 && used.add(wc.wrId()), "wr_id " + wc.wrId() + " of " + used);
            assertBytes(src.get(100 * m, 100), bufB, SLOT * (int) wc.wrId(), "message " + m);
        }
        expectNone(p[0].b.rcq, 10);
        expectNone(p[1].b.rcq, 1);
    }

    /** A QP that uses an SRQ takes no receives of its own. */
    @Test
    void postRecvOnQpWithSrqIsRefused() {
        ProtectionDomain pdB = res.pd(res.bed().b());
        SharedReceiveQueue srq = res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(4).maxSge(1)));
        QpPair p = QpPair.builder(res, QpType.RC).pds(null, pdB).srqB(srq).build();
        Buf b = p.b.buf(64, LW);
        assertVerbsFails(Errno.EINVAL, () -> p.b.postRecv(1, b.sge()));
    }

    /** SRQ_LIMIT_REACHED fires once when fewer than srq_limit WQEs remain; the limit is then disarmed. */
    @Test
    void srqLimitEventFiresOnce() {
        EventLog events = new EventLog();
        ProtectionDomain pdB = res.pd(res.bed().b());
        SharedReceiveQueue srq = res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(16).maxSge(1))
                .eventHandler(events));
        QpPair p = QpPair.builder(res, QpType.RC).pds(null, pdB).srqB(srq).build();
        Buf bufB = res.buf(pdB, SLOT * 8, LW);
        postSrq(srq, bufB, 0, 8);
        srq.modify(new SrqAttr().srqLimit(4), EnumSet.of(SrqAttrMask.LIMIT));
        Buf src = p.a.buf(16, LW);

        for (int m = 0; m < 4; m++) { // 8 -> 4 left: not below the limit
            p.a.postSend(send(m, src.sge()));
            expectOk(p.a.scq, WcOpcode.SEND, m);
            poll1(p.b.rcq);
        }
        assertEquals(0, events.count(EventType.SRQ_LIMIT_REACHED), "4 WQEs left, limit 4: " + events);

        p.a.postSend(send(4, src.sge())); // 3 left
        expectOk(p.a.scq, WcOpcode.SEND, 4);
        poll1(p.b.rcq);
        events.await(EventType.SRQ_LIMIT_REACHED, Completions.TIMEOUT_MS);
        assertSame(srq, events.events().get(0).srq(), "the event names the SRQ");

        for (int m = 5; m < 7; m++) {
            p.a.postSend(send(m, src.sge()));
            expectOk(p.a.scq, WcOpcode.SEND, m);
            poll1(p.b.rcq);
        }
        assertEquals(1, events.count(EventType.SRQ_LIMIT_REACHED), "disarmed after firing: " + events);

        // re-armed, it fires again
        postSrq(srq, bufB, 0, 7); // 1 + 7 = 8 left
        srq.modify(new SrqAttr().srqLimit(8), EnumSet.of(SrqAttrMask.LIMIT));
        p.a.postSend(send(7, src.sge()));
        expectOk(p.a.scq, WcOpcode.SEND, 7);
        poll1(p.b.rcq);
        events.await(EventType.SRQ_LIMIT_REACHED, 2, Completions.TIMEOUT_MS);
        assertEquals(2, events.count(EventType.SRQ_LIMIT_REACHED), "events: " + events);
    }

    /** max_wr is enforced: one more WQE than fits is ENOMEM, naming it. */
    @Test
    void srqMaxWrIsEnforced() {
        ProtectionDomain pdB = res.pd(res.bed().b());
        SharedReceiveQueue srq = res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(8).maxSge(1)));
        int maxWr = srq.query().maxWr();
        assertTrue(maxWr >= 8, "max_wr " + maxWr);
        Buf buf = res.buf(pdB, 64, LW);
        RecvWr[] r = new RecvWr[maxWr + 1];
        for (int i = 0; i <= maxWr; i++) {
            r[i] = new RecvWr().wrId(i).sgList(buf.sge());
            if (i > 0) {
                r[i - 1].next(r[i]);
            }
        }
        PostException e = assertPostFails(Errno.ENOMEM, () -> srq.postRecv(r[0]));
        assertSame(r[maxWr], e.badRecvWr(), "bad_wr: " + e.getMessage());
        RecvWr one = new RecvWr().wrId(99).sgList(buf.sge());
        assertSame(one, assertPostFails(Errno.ENOMEM, () -> srq.postRecv(one)).badRecvWr());
    }

    /** A QP that fails does not flush the SRQ: the other QP still receives from it. */
    @Test
    void qpErrorDoesNotFlushTheSrq() {
        ProtectionDomain pdA = res.pd(res.bed().a());
        ProtectionDomain pdB = res.pd(res.bed().b());
        SharedReceiveQueue srq = res.srq(pdB, new SrqInitAttr().attr(new SrqAttr().maxWr(8).maxSge(1)));
        QpPair[] p = twoPairs(srq, pdA, pdB);
        Buf bufB = res.buf(pdB, SLOT * 8, LW);
        postSrq(srq, bufB, 0, 2);
        p[0].b.qp.modify(new QpAttr().state(QpState.ERR));
        expectNone(p[0].b.rcq, 20);

        Buf src = res.buf(pdA, 32, LW).fill(62);
        for (int m = 0; m < 2; m++) {
            p[1].a.postSend(send(m, src.sge()));
            expectOk(p[1].a.scq, WcOpcode.SEND, m);
            WorkCompletion wc = poll1(p[1].b.rcq);
            assertOk(wc, WcOpcode.RECV, wc.wrId());
            assertBytes(src.get(0, 32), bufB, SLOT * (int) wc.wrId(), "message " + m);
        }
    }
}
