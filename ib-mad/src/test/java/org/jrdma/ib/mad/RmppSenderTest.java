package org.jrdma.ib.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.Rmpp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sender side of RMPP ({@code mad_rmpp.c}'s window): A sends 600 bytes of vendor-class data (three
 * segments of 220) to an agent on B that sees every segment raw and answers with the ACK, STOP or ABORT the
 * test chooses, or none.
 */
class RmppSenderTest {
    static final int VENDOR = 0x30;
    static final int DATA = 600;
    static final int HDR = 36;

    final LoopbackMadFabric f = new LoopbackMadFabric();
    final MadLayer mad = new MadLayer(f.core());
    final BlockingQueue<MadRecv> segs = new LinkedBlockingQueue<>();
    final BlockingQueue<WcStatus> done = new LinkedBlockingQueue<>();
    final MadAgent b = mad.registerAgent(f.b(), 1, QpType.GSI, new MadRegistration(VENDOR, 1, Mad.METHOD_SET),
            new MadHandler() {
                @Override
                public void recv(MadAgent agent, MadRecv recv) {
                    segs.add(recv);
                }
            });
    final MadAgent a = mad.registerAgent(f.a(), 1, QpType.GSI, null, new MadHandler() {
        @Override
        public void recv(MadAgent agent, MadRecv recv) {
        }

        @Override
        public void sendDone(MadAgent agent, MadSend send, WcStatus status) {
            done.add(status);
        }
    });

    @AfterEach
    void tearDown() {
        mad.close(); // before the devices it has QPs on
        f.close();
    }

    /** A Set of 600 bytes of class data: byte i of the data is i % 251. */
    MadSend transfer(int timeoutMs, int retries) {
        byte[] big = new byte[HDR + DATA];
        Mad m = new Mad(big, big.length).baseVersion(1).mgmtClass(VENDOR).classVersion(1).method(Mad.METHOD_SET)
                .tid(a.newTid()).attrId(0x1234);
        for (int i = 0; i < DATA; i++) {
            big[HDR + i] = (byte) (i % 251);
        }
        return new MadSend(m).ah(f.avTo(f.b())).timeoutMs(timeoutMs).retries(retries);
    }

    MadRecv seg(long n) throws InterruptedException {
        MadRecv r = segs.poll(5, TimeUnit.SECONDS);
        assertNotNull(r, "segment " + n + " did not arrive");
        assertEquals(n, Rmpp.segNum(r.mad()), "segment number");
        assertEquals(Rmpp.TYPE_DATA, Rmpp.type(r.mad()));
        return r;
    }

    /** B answers segment {@code r} with an RMPP control MAD of {@code type}. */
    void control(MadRecv r, int type, long segNum, long newWin) {
        Mad c = new Mad(Arrays.copyOf(r.mad().bytes(), Mad.SIZE));
        Arrays.fill(c.bytes(), HDR, Mad.SIZE, (byte) 0);
        Rmpp.set(c, type, Rmpp.FLAG_ACTIVE, segNum, newWin);
        b.send(new MadSend(c).ah(b.ahAttrFromWc(r)).remoteQpn(r.srcQp()));
    }

    WcStatus takeDone() throws InterruptedException {
        WcStatus s = done.poll(5, TimeUnit.SECONDS);
        assertNotNull(s, "the transfer did not end");
        return s;
    }

    @Test
    void eachAckMovesTheWindowAndTheLastEndsTheTransfer() throws Exception {
        a.send(transfer(0, 0));
        MadRecv s1 = seg(1);
        assertNull(segs.poll(200, TimeUnit.MILLISECONDS), "the first window is one segment");
        assertEquals(Rmpp.FLAG_ACTIVE | Rmpp.FLAG_FIRST, Rmpp.flags(s1.mad()));
        assertEquals(3 * 220 - 60, Rmpp.paylenNewwin(s1.mad()), "First: the whole PayloadLength (3 x 220 - pad)");
        control(s1, Rmpp.TYPE_ACK, 1, 3);
        MadRecv s2 = seg(2);
        MadRecv s3 = seg(3);
        assertEquals(Rmpp.FLAG_ACTIVE, Rmpp.flags(s2.mad()));
        assertEquals(Rmpp.FLAG_ACTIVE | Rmpp.FLAG_LAST, Rmpp.flags(s3.mad()));
        assertEquals(220 - 60, Rmpp.paylenNewwin(s3.mad()), "Last: what is left");
        List<MadRecv> all = List.of(s1, s2, s3);
        for (int i = 0; i < DATA; i++) {
            assertEquals(i % 251, all.get(i / 220).mad().u8(HDR + i % 220), "data byte " + i);
        }
        assertNull(done.poll(100, TimeUnit.MILLISECONDS), "not done before the last ACK");
        control(s3, Rmpp.TYPE_ACK, 3, 3);
        assertEquals(WcStatus.SUCCESS, takeDone());
        assertEquals(3, mad.counters(f.a(), 1).get("rmpp_segs_sent"));
        assertEquals(0, mad.counters(f.a(), 1).get("rmpp_aborts"));
    }

    @Test
    void aLostAckResendsFromTheSegmentAfterTheLastAcked() throws Exception {
        a.send(transfer(500, 1));
        control(seg(1), Rmpp.TYPE_ACK, 1, 3);
        seg(2);
        seg(3);
        // no ACK: after 500 ms the window from segment 2 goes again
        seg(2);
        MadRecv again = seg(3);
        assertEquals(1, mad.counters(f.a(), 1).get("retries"));
        control(again, Rmpp.TYPE_ACK, 3, 3);
        assertEquals(WcStatus.SUCCESS, takeDone());
        assertEquals(5, mad.counters(f.a(), 1).get("rmpp_segs_sent"));
    }

    @Test
    void noAckAtAllTimesOutAfterTheRetries() throws Exception {
        a.send(transfer(100, 2));
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            seen.add(Rmpp.segNum(seg(1).mad()));
        }
        assertEquals(WcStatus.RESP_TIMEOUT_ERR, takeDone());
        assertEquals(List.of(1L, 1L, 1L), seen, "the first window, sent and resent twice");
        assertEquals(1, mad.counters(f.a(), 1).get("timeouts"));
    }

    @Test
    void stopAbortAndAnAckPastTheEndEndTheTransfer() throws Exception {
        int[][] answers = {{Rmpp.TYPE_STOP, 1, 1}, {Rmpp.TYPE_ABORT, 1, 1}, {Rmpp.TYPE_ACK, 5, 5}, {Rmpp.TYPE_ACK, 1, 0}};
        for (int[] x : answers) {
            a.send(transfer(0, 0));
            control(seg(1), x[0], x[1], x[2]);
            assertEquals(WcStatus.REM_ABORT_ERR, takeDone(), "answer " + Arrays.toString(x));
        }
        assertEquals(answers.length, mad.counters(f.a(), 1).get("rmpp_aborts"));
        assertTrue(segs.isEmpty(), "nothing more was sent");
    }
}
