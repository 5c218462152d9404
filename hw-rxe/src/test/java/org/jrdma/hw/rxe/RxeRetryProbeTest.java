package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * After a local ACK timeout the requester resends one packet (the oldest unacknowledged, AckReq set) and
 * waits for its answer before resending the rest (see RxeRequester.probeable): a slow peer that has it all
 * answers with one ACK instead of one per duplicate.
 */
class RxeRetryProbeTest {
    static final int PEER_QPN = 0x11;
    static final int PSN = 0x200;
    static final int MTU = 1024;
    RxeWireBed bed;

    @AfterEach
    void close() throws Exception {
        if (bed != null) {
            bed.close();
        }
    }

    private Side connected() throws Exception {
        bed = new RxeWireBed("192.0.2.10", "192.0.2.11");
        Side s = bed.side(QpType.RC, 65536);
        Conn c = new Conn(PEER_QPN, 0, PSN);
        c.timeout = 14; // ~67 ms (backed off: 134 ms): room to see what is (not) sent between two timeouts, even on a loaded machine
        bed.connect(s, c);
        return s;
    }

    private RxePacket next() throws InterruptedException {
        return bed.nextPacket(2000);
    }

    private void ack(Side s, int psn, int msn) {
        bed.injectAck(s.qpn(), Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), psn, msn);
    }

    private void send4(Side s) {
        s.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(s.mr.iova(), 4 * MTU, s.mr.lkey())).remote(0x1000, 0x77));
    }

    /** The peer had it all: one probe, one ACK, done; the other three packets are never resent. */
    @Test
    void aProbeAnsweredForEverythingEndsTheRetry() throws Exception {
        Side s = connected();
        send4(s);
        for (int i = 0; i < 4; i++) {
            assertEquals(PSN + i, next().psn()); // the ACK is "lost"
        }
        RxePacket probe = next(); // after the timeout
        assertEquals(RxeOpcode.RC_RDMA_WRITE_FIRST, probe.opcode());
        assertEquals(PSN, probe.psn());
        assertTrue(probe.ackReq(), "the probe asks for an ACK");
        bed.quiet(8); // nothing else until it is answered
        ack(s, PSN + 3, 1);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        bed.quiet(60);
        assertEquals(1, bed.counter(RxeCounter.COMPLETER_RETRY_ERR));
    }

    /** The peer had only the first packet: the answer to the probe releases the rest, from the right PSN. */
    @Test
    void aPartialAnswerResendsTheRest() throws Exception {
        Side s = connected();
        send4(s);
        for (int i = 0; i < 4; i++) {
            next();
        }
        RxePacket probe = next();
        assertEquals(PSN, probe.psn());
        ack(s, PSN, 0);
        for (int i = 1; i < 4; i++) {
            RxePacket p = next();
            while (i == 1 && p.psn() == PSN) {
                p = next(); // a second probe: on a loaded host the backed-off timer can fire before the ACK is read
            }
            assertEquals(PSN + i, p.psn());
            assertEquals(i == 3 ? RxeOpcode.RC_RDMA_WRITE_LAST : RxeOpcode.RC_RDMA_WRITE_MIDDLE, p.opcode());
        }
        ack(s, PSN + 3, 1);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
    }

    /** An unanswered probe is sent again after the next (longer) timeout, still alone. */
    @Test
    void anUnansweredProbeIsRepeated() throws Exception {
        Side s = connected();
        send4(s);
        for (int i = 0; i < 4; i++) {
            next();
        }
        long t0 = System.nanoTime();
        RxePacket p1 = next();
        RxePacket p2 = next();
        long gapMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(PSN, p1.psn());
        assertEquals(PSN, p2.psn());
        assertTrue(p2.ackReq());
        assertTrue(gapMs >= 20, "the second timeout waits twice the first: " + gapMs + " ms");
        ack(s, PSN + 3, 1);
        assertEquals(WcStatus.SUCCESS, s.next(2000).status());
        assertFalse(bed.counter(RxeCounter.RETRY_EXCEEDED_ERR) > 0);
    }
}
