package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.hw.rxe.RxeWireBed.Conn;
import org.jrdma.hw.rxe.RxeWireBed.Side;
import org.jrdma.hw.rxe.wire.Aeth;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * A PSN sequence NAK makes the requester go back to the NAK's PSN at once (no wait for the retransmit
 * timer, here 4.3 s), completes what the NAK implicitly acknowledges, and is counted in rcvd_seq_err: every
 * retry is then either a counted NAK or a timeout (completer_retry_err - rcvd_seq_err), which is how
 * bench/BOUNDS.md tells the two apart.
 */
class RxeSeqNakTest {
    static final int PEER_QPN = 0x11;
    static final int PSN = 0x300;
    static final int MTU = 1024;
    RxeWireBed bed;

    @AfterEach
    void close() throws Exception {
        if (bed != null) {
            bed.close();
        }
    }

    private Side connected() throws Exception {
        bed = new RxeWireBed("192.0.2.20", "192.0.2.21");
        Side s = bed.side(QpType.RC, 65536);
        Conn c = new Conn(PEER_QPN, 0, PSN);
        c.timeout = 20; // 4.3 s: a retransmission within the 2 s below can only come from the NAK
        bed.connect(s, c);
        return s;
    }

    private RxePacket next() throws InterruptedException {
        return bed.nextPacket(2000);
    }

    private void ack(Side s, int syndrome, int psn, int msn) {
        bed.injectAck(s.qpn(), syndrome, psn, msn);
    }

    /** Two 4-packet WRITEs: PSN .. PSN + 3 and PSN + 4 .. PSN + 7, both signaled. */
    private void twoWrites(Side s) throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            s.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(s.mr.iova() + i * 4 * MTU, 4 * MTU, s.mr.lkey())).remote(0x1000 + i * 4 * MTU, 0x77));
        }
        for (int i = 0; i < 8; i++) {
            assertEquals(PSN + i, next().psn());
        }
    }

    /**
     * The first packet of the second WRITE was lost: the NAK's PSN is the first PSN of a message. It
     * completes the first WRITE (checkPsn moves comp.psn up to the NAK's PSN) and restarts the second.
     * rxe's own completer does not count this one (it counts a NAK only past comp.psn).
     */
    @Test
    void aNakAtAMessageBoundaryCompletesTheFirstAndResendsTheSecondAtOnce() throws Exception {
        Side s = connected();
        twoWrites(s);
        long t0 = System.nanoTime();
        ack(s, Aeth.NAK_PSN_SEQ_ERROR, PSN + 4, 1);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        for (int i = 4; i < 8; i++) {
            RxePacket p = next();
            assertEquals(PSN + i, p.psn());
            assertEquals(i == 4 ? RxeOpcode.RC_RDMA_WRITE_FIRST : i == 7 ? RxeOpcode.RC_RDMA_WRITE_LAST
                    : RxeOpcode.RC_RDMA_WRITE_MIDDLE, p.opcode());
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 4000, "resent before the retransmit timer could fire: " + ms + " ms");
        assertEquals(1, bed.counter(RxeCounter.RCVD_SEQ_ERR), "the NAK is counted");
        assertEquals(1, bed.counter(RxeCounter.COMPLETER_RETRY_ERR), "one retry, the NAK's");
        ack(s, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), PSN + 7, 2);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        bed.quiet(50);
    }

    /** A NAK inside the first WRITE: it resumes that message with a MIDDLE packet, then sends the second. */
    @Test
    void aNakInsideAMessageResumesItThere() throws Exception {
        Side s = connected();
        twoWrites(s);
        ack(s, Aeth.NAK_PSN_SEQ_ERROR, PSN + 2, 0);
        for (int i = 2; i < 8; i++) {
            RxePacket p = next();
            assertEquals(PSN + i, p.psn());
            if (i == 2) {
                assertEquals(RxeOpcode.RC_RDMA_WRITE_MIDDLE, p.opcode());
            }
        }
        assertEquals(1, bed.counter(RxeCounter.RCVD_SEQ_ERR));
        assertEquals(1, bed.counter(RxeCounter.COMPLETER_RETRY_ERR));
        ack(s, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), PSN + 7, 2);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
    }

    /** A stale NAK (before comp.psn: an ACK got there first) neither counts nor moves anything. */
    @Test
    void aStaleNakIsIgnored() throws Exception {
        Side s = connected();
        twoWrites(s);
        ack(s, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), PSN + 3, 1);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        ack(s, Aeth.NAK_PSN_SEQ_ERROR, PSN + 1, 0);
        bed.quiet(100);
        assertEquals(0, bed.counter(RxeCounter.RCVD_SEQ_ERR));
        assertEquals(0, bed.counter(RxeCounter.COMPLETER_RETRY_ERR));
        ack(s, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), PSN + 7, 2);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
    }
}
