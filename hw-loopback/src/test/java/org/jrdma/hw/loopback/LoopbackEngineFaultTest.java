package org.jrdma.hw.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.sw.rdmavt.RvtQp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An unexpected exception in the engine (a bug: a tester once hit one that was retried 163,212 times in 100 s)
 * ends the QP's work instead: the head WQE completes with LOC_QP_OP_ERR, the rest flushes, the QP goes to ERR
 * with IB_EVENT_QP_FATAL, and nothing runs the failing step again.
 */
class LoopbackEngineFaultTest {
    final IbCore core = IbCore.newInstance();
    final LoopbackDevice lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
    final IbClient ulp = new IbClient() {
        public String name() { return "fault"; }
        public void add(IbDevice device) { }
        public void remove(IbDevice device, Object data) { }
    };

    @AfterEach
    void close() {
        lo.close();
    }

    @Test
    void anEngineFailureEndsTheQpWithQpFatalInsteadOfRetryingForEver() throws Exception {
        IbDevice dev = lo.register(core.registrar()).device();
        core.registerClient(ulp);
        LinkedBlockingQueue<Object> wakeups = new LinkedBlockingQueue<>();
        List<AsyncEvent> events = new ArrayList<>();
        ProtectionDomain pd = dev.allocPd(ulp);
        CompletionQueue cq = dev.createCq(ulp, new CqInitAttr().cqe(64).compHandler(c -> wakeups.add(c)));
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).cq(cq).eventHandler(e -> {
            synchronized (events) {
                events.add(e);
            }
        }).cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1));
        QueuePair a = pd.createQp(init);
        QueuePair b = pd.createQp(init);
        TwoQpExampleTest.connect(a, 1, b, 2, dev);
        TwoQpExampleTest.connect(b, 2, a, 1, dev);
        MemoryRegion mr = pd.regMr(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        // b posts no receive and rnr_retry is 7 (for ever): the SENDs stay queued, the head one RNR-retried
        for (int i = 1; i <= 3; i++) {
            a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova(), 8, mr.lkey())));
        }
        RvtQp q = lo.qp(a.qpNum());
        q.exec.lock(); // as the engine holds it when a step throws
        try {
            q.fatal(new IllegalStateException("injected engine failure"));
            q.fatal(new IllegalStateException("a second one is ignored"));
        } finally {
            q.exec.unlock();
        }
        WorkCompletion first = TwoQpExampleTest.next(cq, wakeups);
        assertEquals(1, first.wrId());
        assertEquals(WcStatus.LOC_QP_OP_ERR, first.status());
        for (int i = 2; i <= 3; i++) {
            WorkCompletion w = TwoQpExampleTest.next(cq, wakeups);
            assertEquals(i, w.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, w.status());
        }
        assertEquals(QpState.ERR, a.query().state());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            synchronized (events) {
                if (events.stream().anyMatch(e -> e.type() == EventType.QP_FATAL) || System.nanoTime() > end) {
                    assertEquals(1, events.stream().filter(e -> e.type() == EventType.QP_FATAL).count(), events.toString());
                    break;
                }
            }
            Thread.sleep(20);
        }
        WorkCompletion[] wc = {new WorkCompletion()};
        Thread.sleep(200);
        assertEquals(0, cq.poll(wc), "nothing completes twice");
        assertTrue(b.query().state() == QpState.RTS, "the peer is untouched");
    }
}
