package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
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
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hostile node floods the SA with GetTable(NodeRecord) requests from a plain UD QP that never receives and never
 * ACKs: every answer is an RMPP transfer that waits for ACKs (1 s, 3 retries) and would stay outstanding for 4 s.
 * The SA keeps at most {@link SubnetAdministrator#MAX_RMPP_PER_REQUESTER} of them for that requester and answers
 * the rest with MAD status BUSY (a single MAD, no state; the requester may retry later), counted as
 * {@code sa_busy}; a legitimate query during the flood still gets its records, and the flood's share is free again
 * once its answers time out.
 */
class SaFloodTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();

    static final int FLOOD = 20_000;
    /** Send buffers: more than the sends in flight (200), so none is rewritten before it went. */
    static final int SLOTS = 256;
    static final IbClient RAW = org.jrdma.ib.core.cli.ToolClient.named("sa-flood");

    @Test
    void aGetTableFloodIsAnsweredBusyBeyondTheBoundAndTheSaStillServes() throws Exception {
        IbDevice a = ib.add(1);
        IbDevice b = ib.add(1);
        ib.add(1); // three NodeRecords: an answer of two RMPP segments
        ib.sweptBy(a, 0);
        ProtectionDomain pd = b.allocPd(RAW);
        CompletionQueue cq = b.createCq(RAW, new CqInitAttr().cqe(512));
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(cq)
                .cap(new QpCap().maxSendWr(256).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(MadService.QP1_QKEY));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        ByteBuffer buf = ByteBuffer.allocateDirect(SLOTS * Mad.SIZE); // one slot per send in flight
        MemoryRegion mr = pd.regMr(buf, Access.LOCAL_WRITE);
        AddressHandle ah = pd.createAh(new AhAttr().portNum(1).dlid(a.queryPort(1).lid()));
        Map<String, Long> before = ib.mad().counters(a, 1);
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        int outstanding = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < FLOOD; i++) {
            byte[] m = new byte[Mad.SIZE];
            new Mad(m).baseVersion(1).mgmtClass(Mad.CLASS_SUBN_ADM).classVersion(2).method(Mad.METHOD_GET_TABLE)
                    .tid(0x5a00_0000L + i).attrId(NodeRecord.ATTR_ID);
            int off = i % SLOTS * Mad.SIZE;
            buf.put(off, m);
            while (outstanding >= 200) {
                int n = cq.poll(wc);
                for (int k = 0; k < n; k++) {
                    assertEquals(WcStatus.SUCCESS, wc[k].status());
                }
                outstanding -= n;
                assertTrue(System.nanoTime() < end, "the flood's sends complete");
            }
            qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova() + off, Mad.SIZE, mr.lkey())).ud(ah, 1, MadService.QP1_QKEY));
            outstanding++;
        }
        while (outstanding > 0) {
            outstanding -= cq.poll(wc);
            assertTrue(System.nanoTime() < end, "the flood's sends complete");
        }
        // the SA took what its receive ring let through; wait until it has answered all of it
        Map<String, Long> after = ib.mad().counters(a, 1);
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < settle) {
            LockSupport.parkNanos(50_000_000);
            Map<String, Long> now = ib.mad().counters(a, 1);
            if (now.equals(after)) {
                break;
            }
            after = now;
        }
        long requests = delta(after, before, "sa_requests");
        long busy = delta(after, before, "sa_busy");
        long answered = delta(after, before, "rmpp_segs_sent"); // one first segment per RMPP answer (window 1)
        System.out.println("SaFloodTest: " + FLOOD + " sent, " + requests + " taken by the SA, " + busy + " BUSY, "
                + answered + " RMPP answers, outstanding " + ib.sm().sa().rmppOutstanding() + "; counters " + after);
        assertTrue(requests > 1000, "the flood reached the SA: " + requests);
        assertTrue(ib.sm().sa().rmppOutstanding() <= SubnetAdministrator.MAX_RMPP_PER_REQUESTER,
                () -> "outstanding RMPP answers " + ib.sm().sa().rmppOutstanding());
        assertTrue(answered <= requests - busy, "one RMPP answer per request that was not BUSY");
        assertEquals(requests, busy + answered, () -> "every request answered, by RMPP or BUSY: " + requests + " = "
                + busy + " + " + answered);
        assertEquals(0, delta(after, before, "sa_errors"), "BUSY is not an SA error");
        // a legitimate query (another requester) is answered while the flood's answers still wait for their ACKs
        assertEquals(3, ib.sa().nodeRecords(a, 1, null, 0, 1000).get(10, TimeUnit.SECONDS).size());
        // the flood's own share is freed when its answers time out (1 s, 3 retries)
        long free = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (ib.sm().sa().rmppOutstanding() > 0 && System.nanoTime() < free) {
            Thread.sleep(100);
        }
        assertEquals(0, ib.sm().sa().rmppOutstanding(), "the flood's RMPP answers ended");
        ah.destroy();
        qp.destroy();
        mr.dereg();
        cq.destroy();
        pd.dealloc();
    }

    /**
     * One client asking 200 GetTables at once goes past its share of 16: the SA answers some BUSY, and the client
     * asks those again after a pause, so every query still gets its records.
     */
    @Test
    void aClientPastItsShareIsAnsweredBusyAndAsksAgain() throws Exception {
        IbDevice a = ib.add(1);
        IbDevice b = ib.add(1);
        ib.add(1);
        ib.sweptBy(a, 0);
        Map<String, Long> before = ib.mad().counters(a, 1);
        java.util.List<java.util.concurrent.CompletableFuture<java.util.List<NodeRecord>>> qs = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            qs.add(ib.sa().nodeRecords(b, 1, null, 0, 1000).toCompletableFuture());
        }
        for (var q : qs) {
            assertEquals(3, q.get(30, TimeUnit.SECONDS).size());
        }
        Map<String, Long> after = ib.mad().counters(a, 1);
        long busy = delta(after, before, "sa_busy");
        System.out.println("SaFloodTest: 200 queries at once from one client: " + busy + " BUSY answers, asked again");
        assertTrue(busy > 0, "200 at once exceed a share of 16: some BUSY");
        assertEquals(200 + busy, delta(after, before, "sa_requests"), "each BUSY one asked again");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // the last ACKs reach the SA after the records
        while (ib.sm().sa().rmppOutstanding() > 0 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(0, ib.sm().sa().rmppOutstanding(), "every answer ACKed, every share free");
    }

    private static long delta(Map<String, Long> after, Map<String, Long> before, String k) {
        return after.getOrDefault(k, 0L) - before.getOrDefault(k, 0L);
    }
}
