package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.zip.CRC32;

import org.jrdma.hw.rxe.RxeFabric.Conn;
import org.jrdma.hw.rxe.RxeFabric.Side;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RC under seeded drop, duplication, reordering and corruption: byte-exact, nothing lost or doubled. */
class RxeFaultTest {
    static final int MIB = 1 << 20;
    /** Total bytes of the big transfer; -Drxe.faultMiB=N to change. */
    static final int TOTAL_MIB = Integer.getInteger("rxe.faultMiB", 256);
    RxeFabric f;

    @AfterEach
    void close() throws Exception {
        if (f != null) {
            f.close();
        }
    }

    @AfterAll
    static void noLeaks() throws Exception {
        assertEquals(0, LeakCheck.collect(), "leaked buffers (Netty's detector, or packet slots not returned)");
    }

    /** Fills the message of round {@code r} (distinct content per round). */
    static void fill(Side s, int off, int len, int r) {
        for (int i = 0; i < len; i += 8) {
            s.buf.putLong(off + i, (long) r * 0x9E3779B97F4A7C15L + i * 0xBF58476D1CE4E5B9L);
        }
    }

    static long crc(Side s, int off, int len) {
        CRC32 c = new CRC32();
        c.update(s.buf.slice(off, len));
        return c.getValue();
    }

    @Test
    void bulkSendAndWriteUnderFaults() throws Exception {
        bulk(new InMemoryWire.Faults(5, 1, 3, 8, 0), TOTAL_MIB, true);
    }

    @Test
    void bulkBaselineWithoutFaults() throws Exception {
        bulk(InMemoryWire.Faults.NONE, 64, false);
    }

    private void bulk(InMemoryWire.Faults faults, int rounds, boolean expectRecovery) throws Exception {
        // PARANOID records a stack trace per buffer access: too slow for hundreds of MiB; sample instead
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.SIMPLE);
        f = new RxeFabric(42, 1500);
        f.wire.faults(faults);
        Side x = f.side(f.a, QpType.RC, 16, 4 * MIB);
        Side y = f.side(f.b, QpType.RC, 16, 4 * MIB);
        Conn c = new Conn();
        c.timeout = 12; // ~17 ms: on a loaded 2-core box an ACK can take several ms
        c.retryCnt = 7;
        RxeFabric.connectBoth(x, y, c);
        long t0 = System.nanoTime();
        long expectedWrId = 0;
        int recvs = 0;
        // two messages in flight: SEND into slot r%2 (receive buffers), WRITE when r%4==3
        for (int r = 0; r < rounds; r++) {
            int slot = r % 2;
            fill(x, slot * MIB, MIB, r);
            long want = crc(x, slot * MIB, MIB);
            boolean write = r % 4 == 3;
            if (!write) {
                y.qp.postRecv(new RecvWr().wrId(r).sgList(new Sge(y.mr.iova() + slot * (long) MIB, MIB, y.mr.lkey())));
            }
            x.qp.postSend(new SendWr().wrId(r).opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova() + slot * (long) MIB, MIB, x.mr.lkey()))
                    .remote(y.mr.iova() + slot * (long) MIB, y.mr.rkey()));
            WorkCompletion w = x.next(60_000);
            assertEquals(WcStatus.SUCCESS, w.status(), "round " + r + " a: " + f.ra.counters() + " b: " + f.rb.counters() + " wire " + f.wire.sent + "/" + f.wire.dropped);
            assertEquals(expectedWrId++, w.wrId(), "in order, none lost or doubled");
            if (!write) {
                WorkCompletion rc = y.next(60_000);
                assertEquals(WcStatus.SUCCESS, rc.status());
                assertEquals(r, rc.wrId());
                assertEquals(MIB, rc.byteLen());
                recvs++;
            }
            assertEquals(want, crc(y, slot * MIB, MIB), "round " + r + " byte-exact");
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(null, x.poll(20));
        assertEquals(null, y.poll(20));
        System.out.printf("RC %d MiB (1 MiB SEND/WRITE, MTU 1024) with %s: %d ms (%.1f MiB/s), %d recvs%n  wire: "
                + "sent=%d dropped=%d dup=%d reordered=%d%n  a: %s%n  b: %s%n", rounds, faults, ms, rounds * 1000.0 / ms, recvs,
                f.wire.sent.get(), f.wire.dropped.get(), f.wire.duplicated.get(), f.wire.reordered.get(),
                f.ra.counters(), f.rb.counters());
        if (!expectRecovery) {
            assertEquals(0, f.ra.counters().get(RxeCounter.RETRY_EXCEEDED_ERR));
            return;
        }
        assertTrue(f.rb.counters().get(RxeCounter.DUPLICATE_REQUEST) > 0);
        assertTrue(f.rb.counters().get(RxeCounter.OUT_OF_SEQ_REQUEST) > 0);
        assertTrue(f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR) > 0);
        assertTrue(f.ra.counters().get(RxeCounter.RCVD_SEQ_ERR) > 0);
    }

    @Test
    void readsAndAtomicsUnderFaults() throws Exception {
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.SIMPLE);
        f = new RxeFabric(7, 1500);
        f.wire.faults(new InMemoryWire.Faults(5, 2, 3, 8, 0));
        Side x = f.side(f.a, QpType.RC, 32, 2 * MIB);
        Side y = f.side(f.b, QpType.RC, 32, 2 * MIB);
        Conn c = new Conn();
        c.timeout = 12; // ~17 ms: a lost read response costs a timeout (rxe ignores read response gaps)
        RxeFabric.connectBoth(x, y, c);
        fill(y, 0, MIB, 99);
        long want = crc(y, 0, MIB);
        for (int r = 0; r < 8; r++) {
            x.buf.putLong(r * 8, 0);
            x.qp.postSend(new SendWr().wrId(r).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(x.mr.iova(), MIB, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey()));
            WorkCompletion w = x.next(60_000);
            assertEquals(WcStatus.SUCCESS, w.status(),
                    () -> "read " + w.wrId() + ": a: " + f.ra.counters() + " | b: " + f.rb.counters());
            assertEquals(WcOpcode.RDMA_READ, w.opcode());
            assertEquals(want, crc(x, 0, MIB), "read " + r);
        }
        // fetch-add: duplicates must be answered from the replay cache, never executed twice
        y.buf.putLong(MIB + 64, 0);
        int n = 400;
        for (int i = 0; i < n; i++) {
            x.qp.postSend(new SendWr().wrId(1000 + i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(1)
                    .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova() + MIB + 8L * (i % 16), 8, x.mr.lkey()))
                    .remote(y.mr.iova() + MIB + 64, y.mr.rkey()));
            WorkCompletion w = x.next(60_000);
            assertEquals(WcStatus.SUCCESS, w.status());
            assertEquals(1000 + i, w.wrId());
            assertEquals(i, x.buf.getLong(MIB + 8 * (i % 16)), "fetch-add " + i + " returns the original value");
        }
        assertEquals(n, y.buf.getLong(MIB + 64), "every fetch-add executed exactly once");
        System.out.printf("reads+atomics under faults: a: %s%n  b: %s%n", f.ra.counters(), f.rb.counters());
    }

    @Test
    void corruptedPacketsAreDroppedAndCounted() throws Exception {
        f = new RxeFabric(3, 1500);
        f.wire.faults(new InMemoryWire.Faults(0, 0, 0, 0, 5));
        Side x = f.side(f.a, QpType.RC, 16, 2 * MIB);
        Side y = f.side(f.b, QpType.RC, 16, 2 * MIB);
        Conn c = new Conn();
        c.timeout = 12;
        RxeFabric.connectBoth(x, y, c);
        for (int r = 0; r < 8; r++) {
            fill(x, 0, MIB, r);
            x.qp.postSend(new SendWr().wrId(r).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(x.mr.iova(), MIB, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, x.next(60_000).status());
            assertEquals(crc(x, 0, MIB), crc(y, 0, MIB));
        }
        long icrc = f.ra.counters().get(RxeCounter.RCVD_ICRC_ERR) + f.rb.counters().get(RxeCounter.RCVD_ICRC_ERR);
        long dropped = f.ra.counters().get(RxeCounter.RCVD_DROPPED) + f.rb.counters().get(RxeCounter.RCVD_DROPPED);
        System.out.printf("corruption: wire corrupted=%d, icrc errors=%d, dropped=%d%n", f.wire.corrupted.get(), icrc, dropped);
        assertTrue(icrc > 0);
        assertEquals(f.wire.corrupted.get() - f.wire.corruptedUnseen.get(), dropped,
                "every corrupted packet dropped (ICRC or header check) but those hit in the ICRC-masked BTH byte 4");
    }
}
