package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;

import org.jrdma.hw.rxe.RxeFabric.Conn;
import org.jrdma.hw.rxe.RxeFabric.Side;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Large RDMA READs against a responder whose responses leave slowly and stall for longer than the ACK timeout
 * (issue 17: `ib_read_bw -a` against Linux rxe in the TCG guest never finished; 6x the data was sent). A timeout
 * during a stall resends every outstanding READ, and the responder answers each duplicate with the whole rest
 * again, queued behind what it is still sending: the duplicates' responses (PSNs the requester already has) must
 * keep the retransmit timer from firing again, or every stall adds another full copy of all outstanding READs.
 */
class RxeSlowReadTest {
    static final int READ = 8 << 20;
    static final int READS = 4;

    /** A stall costs a one-packet probe read, not another copy of the outstanding READs. */
    @Test
    void eightMibReadsConvergeOverASlowStallingLink() throws Exception {
        long[] sentAndRetries = readOverSlowLink(InMemoryWire.Faults.NONE);
        long packets = READS * (long) (READ / 4096);
        assertTrue(sentAndRetries[0] <= packets * 11 / 10, "the responder sent " + sentAndRetries[0]
                + " packets for " + packets + " of data: the retries did not converge (" + sentAndRetries[1]
                + " retries)");
    }

    /**
     * Lost packets on the same link (both ways: READ requests, responses, probe reads and their answers): the
     * probe read's answer asks for the rest, and the READs still land byte-exact.
     */
    @Test
    void eightMibReadsRecoverFromLossOverASlowStallingLink() throws Exception {
        long[] sentAndRetries = readOverSlowLink(new InMemoryWire.Faults(0.05, 0, 0, 0, 0));
        assertTrue(sentAndRetries[1] > 0, "packets were lost, so the requester retried");
    }

    /** {packets the responder sent, the requester's retries}. */
    private long[] readOverSlowLink(InMemoryWire.Faults faults) throws Exception {
        try (RxeFabric f = new RxeFabric(7, 4096 + 80)) {
            // 16 MB/s from the responder, silent 300 ms of every 700 ms (4.5x the 67 ms ACK timeout)
            f.wire.slowLink(InetAddress.getByName("127.0.0.2"), 16_000_000, 700, 300);
            f.wire.faults(faults);
            Side a = f.side(f.a, QpType.RC, 16, READS * READ);
            Side b = f.side(f.b, QpType.RC, 16, READ);
            for (int i = 0; i < READ; i++) {
                b.buf.put(i, (byte) (i * 31 + (i >>> 12)));
            }
            RxeFabric.connectBoth(a, b, new Conn());
            long start = System.nanoTime();
            for (int i = 0; i < READS; i++) {
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(a.mr.iova() + (long) i * READ, READ, a.mr.lkey()))
                        .remote(b.mr.iova(), b.mr.rkey()));
            }
            for (int i = 0; i < READS; i++) {
                WorkCompletion w = a.next(120_000);
                assertEquals(WcStatus.SUCCESS, w.status());
                assertEquals(i, w.wrId());
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            for (int i = 0; i < READS; i++) {
                assertSameBytes(b.buf.duplicate().clear(), a.buf.duplicate().position(i * READ).limit((i + 1) * READ),
                        "READ " + i + " landed byte-exact");
            }
            long packets = READS * (long) (READ / 4096);
            long sent = f.rb.counters().get(RxeCounter.SENT_PKTS);
            long retries = f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR);
            System.out.printf("slow READ (drop %.2f%%): %d x 8 MiB in %d ms, responder sent %d packets for %d"
                    + " (%.2fx), %d retries, %d duplicate requests%n", faults.dropPct(), READS, ms, sent, packets,
                    (double) sent / packets, retries, f.rb.counters().get(RxeCounter.DUPLICATE_REQUEST));
            return new long[] {sent, retries};
        }
    }

    static void assertSameBytes(ByteBuffer want, ByteBuffer got, String what) {
        org.junit.jupiter.api.Assertions.assertEquals(0, want.compareTo(got), what);
    }
}
