package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: CM MADs (REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ/REP, LAP, APR, any attribute) into the CM
 * agent's receive handler ({@code CmRecv.receive}, what the MAD layer calls for a CM class version 2 Send), with
 * the live listener, connection and pending REQ of {@link CmFuzzBed}: the IB CM's state machines, its answers
 * (REJ, DREP, MRA, SIDR_REP, sent for real to the injector) and the RDMA CM above it (CMA header, listener
 * lookup, backlog, events to the consumer). The MAD layer's own checks are MadFuzzTest's.
 * <p>
 * Input: a control byte, then the MAD (up to 256 bytes, zero-padded). Control bit 0 aims the message's comm IDs
 * (and a REQ's CA GUID and QPN) at the live id chosen by bits 4..7, bit 1 aims a REQ or SIDR_REQ at the listener
 * (service ID, CMA destination address) and a DREQ at the id's QPN, bit 2 drops the GRH (no source GID), bit 3
 * keeps the fuzzed header bytes 0..3 (else base version 1, class CM, class version 2, method Send).
 * Per input: the MAD is counted once (rcvd, or dropped_bad_header; see assertBalance) and then accounted for by some other counter
 * (taken, answered, or dropped by reason); no handler throws (dropped_error, the catch-all, stays put), nothing is
 * logged at WARNING with an exception, no thread dies; the ids (each TIMEWAIT one leaves in time), comm ID tables,
 * listeners, the tasks queued on the CM's thread and the bed's PDs, CQs and QPs stay bounded.
 */
class CmFuzzTest {
    private static CmFuzzBed bed;
    private static FuzzWatch watch;
    private static int ibListeners;
    private static int resources;
    /** Inputs fed to the CM's receive handler so far (the CM's own count must match them, see assertBalance). */
    private static long injected;
    /** When each id now in TIMEWAIT was first seen there (identity: ids have no equals of their own). */
    private static final Map<CmId, Long> TIMEWAIT_SINCE = new java.util.IdentityHashMap<>();

    private static CmFuzzBed bed() throws Exception {
        if (bed == null) {
            watch = new FuzzWatch();
            bed = new CmFuzzBed();
            ibListeners = bed.ib.listeners.size();
            resources = bed.resources();
            injected = 0;
        }
        return bed;
    }

    @FuzzTest(maxDuration = "60s")
    void cm(byte[] data) throws Exception {
        CmFuzzBed f = bed();
        int c = data.length > 0 ? data[0] & 0xff : 0;
        byte[] b = new byte[Mad.SIZE];
        System.arraycopy(data, Math.min(1, data.length), b, 0, Math.min(Math.max(0, data.length - 1), Mad.SIZE));
        if ((c & 0x08) == 0) {
            b[0] = Mad.BASE_VERSION;
            b[1] = Mad.CLASS_CM;
            b[2] = CmAttr.CLASS_VERSION;
            b[3] = Mad.METHOD_SEND;
        }
        Mad m = new Mad(b);
        List<CmId> live = f.live();
        CmId target = live.isEmpty() ? null : live.get((c >>> 4) % live.size());
        IbDevice dev = f.rb.ibDevice();
        Gid sgid = f.inj.gid();
        if ((c & 0x01) != 0 && target != null) {
            aim(ByteBuffer.wrap(b), m.attrId(), target);
            dev = target.device;
            sgid = target.path != null ? target.path.dgid() : sgid;
        }
        if ((c & 0x02) != 0) {
            aimService(ByteBuffer.wrap(b), m.attrId(), target);
        }
        if ((c & 0x04) != 0) {
            sgid = null;
        }
        Map<CmCounter, Long> before = f.cm.counters();
        f.ib.recv.receive(dev, 1, f.ib.agentOrNull(dev, 1), new MadRecv(m, 0, 1, 0, 0, sgid, f.gid(dev), null));
        Map<CmCounter, Long> after = f.cm.counters();
        // at least once here: the bed's own connection may be talking to itself meanwhile (a DREQ it was fuzzed
        // into, a REJ to a fuzzed GID of its own); "exactly once" is the balance checked after the settle
        injected++;
        long seen = taken(after) - taken(before);
        assertTrue(seen >= 1, () -> "not counted: neither rcvd nor dropped_bad_header moved");
        assertEquals(before.get(CmCounter.DROPPED_ERROR), after.get(CmCounter.DROPPED_ERROR),
                "a receive handler threw (the catch-all counted it)");
        List<CmCounter> moved = new ArrayList<>();
        after.forEach((k, v) -> {
            if (k != CmCounter.RCVD && !v.equals(before.get(k))) {
                moved.add(k);
            }
        });
        assertTrue(!moved.isEmpty(), () -> "received, then neither taken, answered nor dropped: " + after);
        f.settle();
        assertBalance(f);
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed);
        assertTrue(f.cm.idCount() <= 8, () -> "RDMA CM ids pile up: " + f.cm.idCount());
        assertEquals(1, f.cm.listeners.size(), "RDMA CM listeners");
        assertEquals(ibListeners, f.ib.listeners.size(), "IB CM listen ids");
        int timewait = checkTimewait(f);
        synchronized (f.ib.lock) {
            assertTrue(f.ib.ids.size() - timewait <= 16, () -> "IB CM ids pile up: " + f.ib.ids.stream().collect(
                    java.util.stream.Collectors.groupingBy(id -> id.state + (id.destroyed ? " destroyed" : ""),
                            java.util.TreeMap::new, java.util.stream.Collectors.counting())));
        }
        assertTrue(f.cm.connTableSize() <= 2 * timewait + 32, () -> "comm ID tables grow: " + f.cm.connTableSize()
                + " with " + timewait + " ids time-waiting");
        assertTrue(f.ib.queuedTasks() <= timewait + 16, () -> "tasks pile up on the CM's thread: " + f.ib.queuedTasks()
                + " with " + timewait + " ids time-waiting");
        f.heal();
        assertTrue(f.resources() <= resources + 6, () -> "QPs, CQs or PDs left behind: " + f.resources() + " > "
                + resources + " + 6");
    }

    /**
     * Exactly once: every CM MAD the CM counted (rcvd, dropped_bad_header) came either from the fuzzer or through the
     * MAD layer of one of the bed's devices (the bed's own traffic), so the CM's count must come to their sum once what
     * is on the wire has arrived (2 s at most). A MAD counted twice would leave it above for good.
     */
    private static void assertBalance(CmFuzzBed f) throws InterruptedException {
        long end = System.nanoTime() + 2_000_000_000L;
        while (true) {
            long wire = f.wireRcvd();
            long cm = taken(f.cm.counters());
            if (cm == wire + injected) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("the CM counted " + cm + " MADs: " + injected + " fuzzed and " + wire
                        + " from the MAD layer make " + (wire + injected));
            }
            Thread.sleep(1);
        }
    }

    /**
     * Ids in TIMEWAIT: as many as the inputs and heals of the last half second made (a rate, as on Linux), but each
     * must leave within {@code TIMEWAIT_MS} and a margin: none may stay. Returns how many there are.
     */
    private static int checkTimewait(CmFuzzBed f) {
        long now = System.nanoTime();
        List<CmId> waiting;
        synchronized (f.ib.lock) {
            waiting = f.ib.ids.stream().filter(id -> id.state == org.jrdma.ib.cm.ib.IbCmState.TIMEWAIT).toList();
        }
        TIMEWAIT_SINCE.keySet().retainAll(waiting);
        for (CmId id : waiting) {
            long since = TIMEWAIT_SINCE.computeIfAbsent(id, k -> now);
            assertTrue(now - since < java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(IbCmService.TIMEWAIT_MS + 3000),
                    () -> "an id stays in TIMEWAIT: " + id.localCommId);
        }
        return waiting.size();
    }

    /** MADs the CM took in: rcvd, or dropped for a bad header before that. */
    private static long taken(Map<CmCounter, Long> c) {
        return c.getOrDefault(CmCounter.RCVD, 0L) + c.getOrDefault(CmCounter.DROPPED_BAD_HEADER, 0L);
    }

    /** Makes the message one of {@code id}'s peer: its comm IDs (a REQ: the peer's comm ID, CA GUID and QPN). */
    private static void aim(ByteBuffer b, int attr, CmId id) {
        int at = Mad.HDR_SIZE;
        switch (attr) {
            case CmAttr.REQ -> {
                b.putInt(at, id.remoteCommId);
                b.putLong(at + 16, id.remoteCaGuid);
                b.putInt(at + 32, id.remoteQpn << 8 | b.get(at + 35) & 0xff);
            }
            case CmAttr.SIDR_REQ -> b.putInt(at, id.remoteCommId);
            case CmAttr.SIDR_REP -> b.putInt(at, id.localCommId);
            default -> {
                b.putInt(at, id.remoteCommId);
                b.putInt(at + 4, id.localCommId);
            }
        }
    }

    /** A REQ or SIDR_REQ to the listener (service ID, CMA header's destination), a DREQ to the id's QPN. */
    private static void aimService(ByteBuffer b, int attr, CmId id) {
        int at = Mad.HDR_SIZE;
        long service = RdmaPortSpace.TCP.serviceId(CmFuzzBed.PORT);
        byte[] dst = CmFuzzBed.addr(2).getAddress();
        switch (attr) {
            case CmAttr.REQ -> {
                b.putLong(at + 8, service);
                b.put(at + 140 + 32, dst); // private data at 140, cma_hdr's IPv4 destination at 32
            }
            case CmAttr.SIDR_REQ -> {
                b.putLong(at + 8, service);
                b.put(at + 16 + 32, dst);
            }
            case CmAttr.DREQ -> {
                if (id != null) {
                    b.putInt(at + 8, id.localQpn << 8 | b.get(at + 11) & 0xff);
                }
            }
            default -> {
            }
        }
    }

    @AfterAll
    static void stop() {
        if (bed != null) {
            System.out.println("CmFuzzTest: " + bed.heals + " heals, counters " + bed.cm.counters());
            bed.close();
            bed = null;
            watch.close();
        }
    }
}
