package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The QP state machine through the API: every transition of the IBTA table (legal ones succeed,
 * the others fail with EINVAL and leave the state), what may be posted in which state, the flush
 * in ERR, the silent discard of RESET, SQD and SQ_DRAINED.
 */
public abstract class QpStateSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** The legal transitions (IBTA 10.3.1 / Linux qp_state_table), written out independently of ib-core. */
    static final Map<QpState, Set<QpState>> LEGAL = Map.of(
            QpState.RESET, EnumSet.of(QpState.RESET, QpState.INIT),
            QpState.INIT, EnumSet.of(QpState.RESET, QpState.ERR, QpState.INIT, QpState.RTR),
            QpState.RTR, EnumSet.of(QpState.RESET, QpState.ERR, QpState.RTS),
            QpState.RTS, EnumSet.of(QpState.RESET, QpState.ERR, QpState.RTS, QpState.SQD),
            QpState.SQD, EnumSet.of(QpState.RESET, QpState.ERR, QpState.RTS, QpState.SQD),
            QpState.SQE, EnumSet.of(QpState.RESET, QpState.ERR, QpState.RTS),
            QpState.ERR, EnumSet.of(QpState.RESET, QpState.ERR));

    /** From RESET (any state first goes to RESET) to {@code s} along the usual path. */
    static void bringTo(QpPair p, QpState s) {
        QueuePair qp = p.a.qp;
        qp.modify(new QpAttr().state(QpState.RESET));
        if (s == QpState.RESET) {
            return;
        }
        p.toInit(p.a);
        if (s == QpState.INIT) {
            return;
        }
        if (s == QpState.ERR) {
            qp.modify(new QpAttr().state(QpState.ERR));
            return;
        }
        p.toRtr(p.a);
        if (s == QpState.RTR) {
            return;
        }
        p.toRts(p.a);
        if (s == QpState.SQD) {
            qp.modify(new QpAttr().state(QpState.SQD));
        }
    }

    /** The attributes a legal {@code from -> to} needs (only the state otherwise). */
    static QpAttr attrsFor(QpPair p, QpState from, QpState to) {
        if (from == QpState.RESET && to == QpState.INIT) {
            return QpPair.initAttr(p.type, p.a.port, Access.REMOTE_WRITE, p.qkey);
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return QpPair.rtrAttr(p.type, avToB(p), p.mtu, p.b.qp.qpNum(), 0,
                    QpPair.maxDestRdAtomic(p.a.dev), 1);
        }
        if (from == QpState.RTR && to == QpState.RTS) {
            return QpPair.rtsAttr(p.type, 0, 14, 7, 7, QpPair.maxRdAtomic(p.a.dev));
        }
        return new QpAttr().state(to);
    }

    static org.jrdma.ib.core.AhAttr avToB(QpPair p) {
        return QpPair.av(p.a.res.bed(), p.a.port, p.b.dev, p.b.port);
    }

    /**
     * Every (from, to) pair with from reachable through the API (all but SQE): a legal transition
     * succeeds and the QP is in the new state; an illegal one fails with EINVAL and the QP stays.
     */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC", "UD"})
    void wholeStateTable(QpType type) {
        QpPair p = QpPair.builder(res, type).connect(false).build();
        QueuePair qp = p.a.qp;
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (QpState from : QpState.values()) {
            if (from == QpState.SQE) {
                continue; // only a driver moves a QP to SQE
            }
            for (QpState to : QpState.values()) {
                bringTo(p, from);
                assertEquals(from, qp.state(), "setting up " + from);
                boolean legal = LEGAL.get(from).contains(to);
                QpAttr attr = legal ? attrsFor(p, from, to) : new QpAttr().state(to);
                checked++;
                try {
                    qp.modify(attr);
                    if (!legal) {
                        wrong.add(from + " -> " + to + " was accepted");
                    } else if (qp.state() != to || qp.query().state() != to) {
                        wrong.add(from + " -> " + to + " left the QP in " + qp.state() + " / query " + qp.query().state());
                    }
                } catch (VerbsException e) {
                    if (legal) {
                        wrong.add(from + " -> " + to + " was refused: " + e.getMessage());
                    } else if (e.errno() != Errno.EINVAL) {
                        wrong.add(from + " -> " + to + " failed with " + e.errno() + ", not EINVAL");
                    } else if (qp.state() != from || qp.query().state() != from) {
                        wrong.add(from + " -> " + to + " failed but moved the QP to " + qp.state() + " / query "
                                + qp.query().state());
                    }
                }
            }
        }
        assertEquals(42, checked);
        if (!wrong.isEmpty()) {
            fail(type + ": " + wrong.size() + " of " + checked + " transitions wrong:\n  " + String.join("\n  ", wrong));
        }
    }

    /** A legal transition with a required attribute missing, or one the transition does not take, fails. */
    @Test
    void missingOrExtraAttributesAreRefused() {
        QpPair p = QpPair.builder(res, QpType.RC).connect(false).build();
        QueuePair qp = p.a.qp;
        assertVerbsFails(Errno.EINVAL, () -> qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0)
                .accessFlags(Access.REMOTE_WRITE)));
        assertState(qp, QpState.RESET);
        assertVerbsFails(Errno.EINVAL, () -> qp.modify(QpPair.initAttr(QpType.RC, p.a.port, 0, 0).qkey(5)));
        assertState(qp, QpState.RESET);
        p.toInit(p.a);
        assertVerbsFails(Errno.EINVAL, () -> qp.modify(new QpAttr().state(QpState.RTR).av(avToB(p)).pathMtu(p.mtu)
                .rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1)));
        assertState(qp, QpState.INIT);
        p.toRtr(p.a);
        assertVerbsFails(Errno.EINVAL, () -> qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7)
                .rnrRetry(7).maxRdAtomic(1)));
        assertState(qp, QpState.RTR);
        p.toRts(p.a);
        assertState(qp, QpState.RTS);
    }

    /** query reports what the modifies set. */
    @Test
    void queryReportsTheAttributesSet() {
        QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(3).minRnrTimer(12).timeout(15).retryCnt(5)
                .access(Access.REMOTE_WRITE | Access.REMOTE_READ).build();
        QpAttr q = p.a.qp.query();
        assertEquals(QpState.RTS, q.state());
        assertEquals(p.mtu, q.pathMtu(), "path_mtu");
        assertEquals(p.b.qp.qpNum(), q.destQpNum(), "dest_qp_num");
        assertEquals(15, q.timeout(), "timeout");
        assertEquals(5, q.retryCnt(), "retry_cnt");
        assertEquals(3, q.rnrRetry(), "rnr_retry");
        assertEquals(12, q.minRnrTimer(), "min_rnr_timer");
        assertEquals(Access.REMOTE_WRITE | Access.REMOTE_READ, q.accessFlags(), "qp_access_flags");
        assertTrue(q.cap().maxSendWr() >= 64 && q.cap().maxRecvWr() >= 64, "cap " + q.cap());

        QpPair u = QpPair.builder(res, QpType.UD).qkey(0x4242).build();
        QpAttr uq = u.a.qp.query();
        assertEquals(QpState.RTS, uq.state());
        assertEquals(0x4242, uq.qkey(), "qkey");
    }

    /** post_send is refused before RTS, naming the WR. */
    @ParameterizedTest
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "RTR"})
    void postSendRefusedBeforeRts(QpState state) {
        QpPair p = QpPair.builder(res, QpType.RC).connect(false).build();
        bringTo(p, state);
        Buf src = p.a.buf(64, LW);
        SendWr w = send(1, src.sge());
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.postSend(w)), w);
        assertState(p.a.qp, state);
        expectNone(p.a.scq, 10);
    }

    /** post_recv is refused in RESET; a receive posted in INIT is used once the QP is connected. */
    @Test
    void postRecvRefusedInResetAcceptedInInit() {
        QpPair p = QpPair.builder(res, QpType.RC).connect(false).build();
        Buf dst = p.a.buf(64, LW);
        RecvWr r = new RecvWr().wrId(1).sgList(dst.sge());
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.qp.postRecv(r)), r);

        p.toInit(p.a);
        p.a.postRecv(2, dst.sge());
        p.toInit(p.b);
        p.toRtr(p.a);
        p.toRtr(p.b);
        p.toRts(p.a);
        p.toRts(p.b);
        Buf src = p.b.buf(64, LW).fill(31);
        p.b.postSend(send(3, src.sge(0, 20)));
        expectOk(p.b.scq, WcOpcode.SEND, 3);
        WorkCompletion wc = expectOk(p.a.rcq, WcOpcode.RECV, 2);
        assertEquals(20, wc.byteLen());
        assertBytes(src.get(0, 20), dst, 0, "received into the WQE posted in INIT");
    }

    /**
     * Moving to ERR flushes every outstanding WQE, send (signaled or not, including one waiting on
     * RNR) and receive, with WR_FLUSH_ERR in order; WRs posted in ERR flush too.
     */
    @Test
    void errFlushesEveryOutstandingWqe() {
        QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(7).minRnrTimer(1).build();
        Buf src = p.a.buf(64, LW);
        Buf dst = p.a.buf(64, LW);
        p.a.postRecv(20, dst.sge(0, 32));
        p.a.postRecv(21, dst.sge(32, 32));
        // B has no receive: the first send waits on RNR forever, the others queue behind it
        p.a.postSend(chain(send(10, src.sge()), send(11, src.sge()).sendFlags(0), send(12, src.sge())));
        expectNone(p.a.scq, 50);

        p.a.qp.modify(new QpAttr().state(QpState.ERR));
        assertState(p.a.qp, QpState.ERR);
        expectFlushed(p.a.scq, 10, 11, 12);
        expectFlushed(p.a.rcq, 20, 21);

        p.a.postSend(send(13, src.sge()).sendFlags(0));
        expectFlushed(p.a.scq, 13);
        p.a.postRecv(22, dst.sge());
        expectFlushed(p.a.rcq, 22);
        expectNone(p.b.rcq, 10);
        assertState(p.b.qp, QpState.RTS);
    }

    /** Destroying a QP flushes its outstanding work to the CQs first. */
    @Test
    void destroyFlushesOutstandingWork() {
        QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(7).minRnrTimer(1).build();
        Buf buf = p.a.buf(64, LW);
        p.a.postRecv(20, buf.sge());
        p.a.postSend(send(10, buf.sge())); // waits on RNR: B has no receive
        expectNone(p.a.scq, 20);
        p.a.qp.destroy();
        expectFlushed(p.a.scq, 10);
        expectFlushed(p.a.rcq, 20);
    }

    /** RESET empties the queues without completions; the QP then works again from scratch. */
    @Test
    void resetDiscardsWithoutCompletions() {
        QpPair p = QpPair.builder(res, QpType.RC).connect(false).build();
        Buf dst = p.a.buf(64, LW);
        p.toInit(p.a);
        p.a.postRecv(1, dst.sge());
        p.a.postRecv(2, dst.sge());
        p.a.qp.modify(new QpAttr().state(QpState.RESET));
        assertState(p.a.qp, QpState.RESET);
        expectNone(p.a.rcq, 30);

        p.reconnect();
        p.a.postRecv(3, dst.sge());
        Buf src = p.b.buf(16, LW).fill(32);
        p.b.postSend(send(4, src.sge()));
        expectOk(p.b.scq, WcOpcode.SEND, 4);
        expectOk(p.a.rcq, WcOpcode.RECV, 3);
        expectNone(p.a.rcq, 10);
    }

    /**
     * RTS to SQD with en_sqd_async_notify raises SQ_DRAINED once; sends posted in SQD wait; SQD to
     * RTS resumes them.
     */
    @Test
    void sqdDrainsNotifiesAndResumes() {
        QpPair p = QpPair.rc(res);
        Buf src = p.a.buf(64, LW).fill(33);
        Buf dst = p.b.buf(64, LW);
        p.b.postRecv(1, dst.sge());

        p.a.qp.modify(new QpAttr().state(QpState.SQD).enSqdAsyncNotify(true));
        p.a.events.await(EventType.SQ_DRAINED, Completions.TIMEOUT_MS);
        assertEquals(p.a.qp, p.a.events.events().get(0).qp(), "the event names the QP");
        assertState(p.a.qp, QpState.SQD);

        p.a.postSend(send(2, src.sge()));
        expectNone(p.b.rcq, 100);
        expectNone(p.a.scq, 1);

        p.a.qp.modify(new QpAttr().state(QpState.RTS));
        assertState(p.a.qp, QpState.RTS);
        expectOk(p.a.scq, WcOpcode.SEND, 2);
        WorkCompletion wc = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(64, wc.byteLen());
        assertBytes(src.get(0, 64), dst, 0, "send resumed after SQD");
        assertEquals(1, p.a.events.count(EventType.SQ_DRAINED), "SQ_DRAINED once: " + p.a.events);
    }

    /** Without en_sqd_async_notify, SQD raises no event. */
    @Test
    void sqdWithoutNotifyRaisesNoEvent() throws InterruptedException {
        QpPair p = QpPair.rc(res);
        p.a.qp.modify(new QpAttr().state(QpState.SQD));
        assertState(p.a.qp, QpState.SQD);
        Thread.sleep(50);
        assertEquals(0, p.a.events.count(EventType.SQ_DRAINED), "events: " + p.a.events);
        p.a.qp.modify(new QpAttr().state(QpState.RTS));
        Buf src = p.a.buf(8, LW);
        Buf dst = p.b.buf(8, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        p.a.postSend(write(1, dst.addr(0), dst.rkey(), src.sge()).sendFlags(SendFlags.SIGNALED));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
    }
}
