package org.jrdma.ib.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbCore;
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
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: MADs (any bytes, up to 2 KiB; past 256 the receive completes in error, recv_errors) from a bare UD QP of device B to QP1 of device A, where the SM/SA runs
 * (ManagedIbFabric): the MAD layer's receive path (validate_mad, find_mad_agent, RMPP, unmatched responses, the layer's
 * replies) and the agents on QP1 (the SA, multicast). Per input: the MAD is received once (rcvd), then counted as
 * dropped (by reason) or answered (sent, unsupported_replies, sa_errors, RMPP counters) or taken by an agent whose
 * own counter moves; nothing is logged at WARNING or above (a completion that threw), no thread dies, A's port stays
 * ACTIVE. Seeds: SA queries (PathRecord, NodeRecord, MCMemberRecord join) and a vendor-class Get.
 */
class MadFuzzTest {
    private static FuzzWatch watch;
    private static ManagedIbFabric ib;
    private static IbDevice a;
    /** B's bare UD QP (MADs to QP1) and C's QP0 (SMPs to QP0); see {@link #smp}. */
    private static Peer udB;
    private static Peer smiC;
    private static LoopbackDevice c;
    /** A's LID (what the AHs address), and how often an SMP made the SM sweep again. */
    private static int lid;
    private static int sweeps;

    /** One sending QP with its own buffer and an AH to A's LID. */
    private static final class Peer {
        final ByteBuffer buf = ByteBuffer.allocateDirect(2048);
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        AddressHandle ah;

        Peer(IbDevice d, QpType type, int qkey) {
            pd = d.allocPd(AbstractMadTest.RAW);
            cq = d.createCq(AbstractMadTest.RAW, new CqInitAttr().cqe(4));
            qp = pd.createQp(new QpInitAttr().qpType(type).portNum(1).cq(cq)
                    .cap(new QpCap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
            QpAttr init = new QpAttr().state(QpState.INIT).pkeyIndex(0).qkey(qkey);
            qp.modify(type == QpType.UD ? init.port(1) : init);
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            mr = pd.regMr(buf, Access.LOCAL_WRITE);
        }

        void aim(int dlid) {
            if (ah != null) {
                ah.destroy();
            }
            ah = pd.createAh(new AhAttr().portNum(1).dlid(dlid));
        }

        void close() {
            ah.destroy();
            qp.destroy();
            mr.dereg();
            cq.destroy();
            pd.dealloc();
        }
    }

    private static void start() throws Exception {
        watch = new FuzzWatch();
        ib = new ManagedIbFabric();
        a = ib.add(1);
        IbDevice b = ib.add(1);
        ib.sweptBy(a, 0);
        udB = new Peer(b, QpType.UD, MadService.QP1_QKEY);
        // C: on the fabric but on a core of its own without a MAD layer, so the test owns its QP0 (as MadPort
        // creates one); plugged in after the sweep, so the SM's first sweep does not wait for its silent SMI
        c = new LoopbackDevice(ib.fabric(), "fz%d", 1, 0);
        smiC = new Peer(c.register(IbCore.newInstance().registrar()).device(), QpType.SMI, 0);
        lid = a.queryPort(1).lid();
        udB.aim(lid);
        smiC.aim(lid);
    }

    @FuzzTest(maxDuration = "60s")
    void mad(byte[] data) throws Exception {
        feed(data, 1, MadService.QP1_QKEY);
    }

    /**
     * SMPs (LID-routed and directed-route, any bytes) to QP0 of device A: the SMI's checks (hop pointer and count,
     * the DR LIDs, the direction bit) and the SMA (SubnGet/SubnSet NodeInfo, PortInfo, ...). They come from QP0 of
     * device C, which the test creates through the verbs (C is on another core, without a MAD layer): hw-loopback
     * delivers to QPN 0 only what a QP0 sends (VL15), so this is a peer whose SMI sends anything. A SubnSet may move
     * A's port legitimately (no M_Key on it): the SM sweeps again after such an input, and A must be ACTIVE again.
     */
    @FuzzTest(maxDuration = "60s")
    void smp(byte[] data) throws Exception {
        feed(data, 0, 0);
        if (a.queryPort(1).state() != org.jrdma.ib.core.PortState.ACTIVE) {
            ib.sm().sweepNow();
            sweeps++;
        }
        assertEquals(org.jrdma.ib.core.PortState.ACTIVE, a.queryPort(1).state(), "A after the SM's sweep");
    }

    /**
     * Sends {@code data} to QP {@code dqpn} of A (QP1: from B's UD QP, QP0: from C's QP0); checks it is received
     * once and accounted for.
     */
    private static void feed(byte[] data, int dqpn, int qkey) throws Exception {
        if (ib == null) {
            start();
        }
        Peer from = dqpn == 0 ? smiC : udB;
        int len = Math.min(data.length, from.buf.capacity());
        if (a.queryPort(1).lid() != lid) { // a SubnSet(PortInfo) gave A another LID: address it there
            lid = a.queryPort(1).lid();
            udB.aim(lid);
            smiC.aim(lid);
        }
        Map<String, Long> before = ib.mad().counters(a, 1);
        from.buf.put(0, data, 0, len);
        from.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(from.mr.iova(), len, from.mr.lkey())).ud(from.ah, dqpn, qkey));
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + 10_000_000_000L;
        while (from.cq.poll(wc) == 0 && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(20_000);
        }
        assertEquals(WcStatus.SUCCESS, wc[0].status(), "the raw send");
        Map<String, Long> after = awaitChange(before, end);
        // once; twice when A answered a directed-route SMP of hop count 0: the response is local
        // (smi_check_local_returning_smp) and comes back to A's own MAD layer, which drops it as unmatched. Not when
        // the input is itself a response (R bit): A answers none, and its own unmatched drop is the input's; and
        // not every answer loops (a reply the MAD layer makes itself may not), so wait for it a moment only
        boolean looping = dqpn == 0 && len > 7 && (data[1] & 0xff) == Mad.CLASS_SUBN_DIRECTED_ROUTE && data[7] == 0
                && (data[3] & 0x80) == 0 && after.get("sent") > before.get("sent");
        long loopEnd = Math.min(end, System.nanoTime() + 2_000_000_000L);
        while (looping && after.get("dropped_unmatched_resp").equals(before.get("dropped_unmatched_resp"))
                && System.nanoTime() - loopEnd < 0) {
            LockSupport.parkNanos(20_000);
            after = ib.mad().counters(a, 1);
        }
        long looped = after.get("dropped_unmatched_resp") - before.get("dropped_unmatched_resp");
        assertEquals(received(before) + 1 + (looping ? looped : 0), received(after),
                "received once (a receive error: longer than a MAD)");
        Map<String, Long> settled = after;
        List<String> moved = new ArrayList<>();
        settled.forEach((k, v) -> {
            if (!k.equals("rcvd") && !v.equals(before.getOrDefault(k, 0L))) {
                moved.add(k);
            }
        });
        assertTrue(!moved.isEmpty(), () -> "received, then neither answered nor counted: " + settled);
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed);
        if (dqpn == 1) {
            assertEquals(org.jrdma.ib.core.PortState.ACTIVE, a.queryPort(1).state());
        }
    }

    /** MADs received: taken (rcvd) or completed in error (recv_errors: more bytes than a MAD's 256). */
    private static long received(Map<String, Long> c) {
        return c.getOrDefault("rcvd", 0L) + c.getOrDefault("recv_errors", 0L);
    }

    /** The counters once the MAD is received and something else has moved (or the deadline passed). */
    private static Map<String, Long> awaitChange(Map<String, Long> before, long end) {
        long settle = 0;
        while (true) {
            Map<String, Long> now = ib.mad().counters(a, 1);
            boolean rcvd = received(now) != received(before);
            long others = now.entrySet().stream().filter(e -> !e.getKey().equals("rcvd"))
                    .filter(e -> !e.getValue().equals(before.getOrDefault(e.getKey(), 0L))).count();
            if (rcvd && others > 0) {
                return now;
            }
            if (rcvd && settle == 0) {
                settle = System.nanoTime() + 2_000_000_000L; // an agent's answer may come a moment later
            }
            if (System.nanoTime() - end > 0 || settle != 0 && System.nanoTime() - settle > 0) {
                return now;
            }
            LockSupport.parkNanos(20_000);
        }
    }

    @AfterAll
    static void stop() {
        if (ib != null) {
            System.out.println("MadFuzzTest: " + sweeps + " sweeps after SMPs, counters " + ib.mad().counters(a, 1));
            udB.close();
            smiC.close();
            c.close();
            ib.close();
            ib = null;
            watch.close();
        }
    }
}
