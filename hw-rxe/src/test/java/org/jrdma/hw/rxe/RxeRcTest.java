package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.jrdma.hw.rxe.RxeFabric.Conn;
import org.jrdma.hw.rxe.RxeFabric.Side;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** RC over two RxeDevices on a fault-free InMemoryWire: SEND, WRITE, READ, immediates, atomics, errors. */
class RxeRcTest {
    static final int MIB = 1 << 20;
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

    static void fill(ByteBuffer b, int off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) (i * 31 + seed + (i >>> 8)));
        }
    }

    static void assertBytes(ByteBuffer src, int so, ByteBuffer dst, int dOff, int len) {
        for (int i = 0; i < len; i++) {
            if (src.get(so + i) != dst.get(dOff + i)) {
                throw new AssertionError("byte " + i + " of " + len + " differs");
            }
        }
    }

    Side[] pair(int netdevMtu, QpType type) throws Exception {
        f = new RxeFabric(1, netdevMtu);
        Side x = f.side(f.a, type, 64, 2 * MIB + 4096);
        Side y = f.side(f.b, type, 64, 2 * MIB + 4096);
        RxeFabric.connectBoth(x, y, new Conn());
        return new Side[] {x, y};
    }

    @ParameterizedTest(name = "netdev MTU {0}, {1} bytes")
    @CsvSource({"1500,64", "1500,4096", "1500,1048576", "9000,64", "9000,4096", "9000,1048576", "1500,0",
            "1500,1024", "1500,2049"})
    void sendRecv(int netdevMtu, int len) throws Exception {
        Side[] s = pair(netdevMtu, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        fill(x.buf, 0, len, 5);
        y.qp.postRecv(new RecvWr().wrId(77).sgList(new Sge(y.mr.iova() + 8, MIB + 100, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())));
        WorkCompletion sc = x.next(5000);
        assertEquals(WcStatus.SUCCESS, sc.status());
        assertEquals(1, sc.wrId());
        assertEquals(WcOpcode.SEND, sc.opcode());
        WorkCompletion rc = y.next(5000);
        assertEquals(WcStatus.SUCCESS, rc.status());
        assertEquals(77, rc.wrId());
        assertEquals(WcOpcode.RECV, rc.opcode());
        assertEquals(len, rc.byteLen());
        assertBytes(x.buf, 0, y.buf, 8, len);
    }

    @ParameterizedTest(name = "netdev MTU {0}, {1} bytes")
    @CsvSource({"1500,64", "1500,4096", "1500,1048576", "9000,64", "9000,4096", "9000,1048576", "1500,3000"})
    void writeThenRead(int netdevMtu, int len) throws Exception {
        Side[] s = pair(netdevMtu, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        fill(x.buf, 0, len, 9);
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())).remote(y.mr.iova() + 16, y.mr.rkey()));
        WorkCompletion w = x.next(5000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(WcOpcode.RDMA_WRITE, w.opcode());
        assertEquals(len, w.byteLen());
        assertBytes(x.buf, 0, y.buf, 16, len);
        // read it back into another place
        x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova() + MIB + 64, len, x.mr.lkey())).remote(y.mr.iova() + 16, y.mr.rkey()));
        WorkCompletion r = x.next(5000);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RDMA_READ, r.opcode());
        assertEquals(len, r.byteLen());
        assertBytes(x.buf, 0, x.buf, MIB + 64, len);
        assertEquals(null, y.poll(20), "RDMA WRITE/READ complete nothing at the responder");
    }

    @Test
    void manyMessagesInFlight() throws Exception {
        Side[] s = pair(1500, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        int n = 48;
        int len = 10000;
        fill(x.buf, 0, len * 4, 3);
        for (int i = 0; i < n; i++) {
            y.qp.postRecv(new RecvWr().wrId(100 + i).sgList(new Sge(y.mr.iova() + (i % 4) * 16384L, 16384, y.mr.lkey())));
        }
        for (int i = 0; i < n; i++) {
            x.qp.postSend(new SendWr().wrId(i).opcode(i % 3 == 0 ? WrOpcode.RDMA_WRITE : WrOpcode.SEND)
                    .sendFlags(i % 5 == 0 ? SendFlags.SIGNALED : 0)
                    .sgList(new Sge(x.mr.iova() + (i % 4) * (long) len, len, x.mr.lkey()))
                    .remote(y.mr.iova() + MIB, y.mr.rkey()));
        }
        int signaled = 0;
        for (int i = 0; i < n; i += 5) {
            WorkCompletion w = x.next(5000);
            assertEquals(WcStatus.SUCCESS, w.status());
            assertEquals(i, w.wrId(), "in order");
            signaled++;
        }
        int recvs = 0;
        for (int i = 0; i < n; i++) {
            if (i % 3 != 0) {
                WorkCompletion r = y.next(5000);
                assertEquals(WcStatus.SUCCESS, r.status());
                assertEquals(100 + recvs, r.wrId());
                recvs++;
            }
        }
        assertEquals(10, signaled);
        assertEquals(null, x.poll(20));
    }

    @Test
    void immediates() throws Exception {
        Side[] s = pair(1500, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        fill(x.buf, 0, 5000, 1);
        y.qp.postRecv(new RecvWr().wrId(10).sgList(new Sge(y.mr.iova(), 8192, y.mr.lkey())));
        y.qp.postRecv(new RecvWr().wrId(11).sgList(new Sge(y.mr.iova(), 8192, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0x12345678)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova(), 5000, x.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xcafe)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova(), 3000, x.mr.lkey()))
                .remote(y.mr.iova() + MIB, y.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        WorkCompletion r1 = y.next(5000);
        assertEquals(10, r1.wrId());
        assertEquals(WcOpcode.RECV, r1.opcode());
        assertTrue((r1.wcFlags() & WcFlags.WITH_IMM) != 0);
        assertEquals(0x12345678, r1.immData());
        assertEquals(5000, r1.byteLen());
        WorkCompletion r2 = y.next(5000);
        assertEquals(11, r2.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r2.opcode());
        assertEquals(0xcafe, r2.immData());
        assertEquals(3000, r2.byteLen());
        assertBytes(x.buf, 0, y.buf, 0, 5000);
        assertBytes(x.buf, 0, y.buf, MIB, 3000);
    }

    @Test
    void atomics() throws Exception {
        Side[] s = pair(1500, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        y.buf.putLong(64, 100);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(5)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova(), 8, x.mr.lkey()))
                .remote(y.mr.iova() + 64, y.mr.rkey()));
        WorkCompletion w = x.next(5000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(WcOpcode.FETCH_ADD, w.opcode());
        assertEquals(100, x.buf.getLong(0));
        assertEquals(105, y.buf.getLong(64));
        // compare-and-swap: a miss, then a hit
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).compareAdd(7).swap(999)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova() + 8, 8, x.mr.lkey()))
                .remote(y.mr.iova() + 64, y.mr.rkey()));
        x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).compareAdd(105).swap(-1L)
                .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova() + 16, 8, x.mr.lkey()))
                .remote(y.mr.iova() + 64, y.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        assertEquals(105, x.buf.getLong(8));
        assertEquals(105, x.buf.getLong(16));
        assertEquals(-1L, y.buf.getLong(64));
        // 200 fetch-adds in flight, exact sum
        y.buf.putLong(128, 0);
        for (int i = 0; i < 50; i++) {
            x.qp.postSend(new SendWr().wrId(10 + i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(3)
                    .sendFlags(SendFlags.SIGNALED).sgList(new Sge(x.mr.iova() + 64 + 8 * i, 8, x.mr.lkey()))
                    .remote(y.mr.iova() + 128, y.mr.rkey()));
        }
        for (int i = 0; i < 50; i++) {
            WorkCompletion c = x.next(5000);
            assertEquals(WcStatus.SUCCESS, c.status());
            assertEquals(10 + i, c.wrId());
            assertEquals(3L * i, x.buf.getLong(64 + 8 * i));
        }
        assertEquals(150, y.buf.getLong(128));
    }

    @Test
    void remoteAccessErrorNak() throws Exception {
        Side[] s = pair(1500, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey() ^ 0x55));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())));
        WorkCompletion w = x.next(5000);
        assertEquals(1, w.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, w.status());
        WorkCompletion w2 = x.next(5000);
        assertEquals(2, w2.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, w2.status());
        assertEquals(QpState.ERR, x.qp.query().state());
        assertEquals(QpState.ERR, y.qp.query().state(), "the responder moves to ERR too");
    }

    @Test
    void readBeyondTheRegionNaks() throws Exception {
        Side[] s = pair(1500, QpType.RC);
        Side x = s[0];
        Side y = s[1];
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 4096, x.mr.lkey())).remote(y.mr.iova() + 2 * MIB + 1, y.mr.rkey()));
        assertEquals(WcStatus.REM_ACCESS_ERR, x.next(5000).status());
    }

    @Test
    void rnrRetryExceeded() throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.RC, 16, 8192);
        Side y = f.side(f.b, QpType.RC, 16, 8192);
        Conn c = new Conn();
        c.rnrRetry = 2;
        RxeFabric.connectBoth(x, y, c);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())));
        WorkCompletion w = x.next(5000);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, w.status());
        assertEquals(3, f.ra.counters().get(RxeCounter.RCVD_RNR_ERR));
        assertEquals(3, f.rb.counters().get(RxeCounter.SEND_RNR_ERR));
        assertEquals(1, f.ra.counters().get(RxeCounter.RNR_NAK_RETRY_ERR));
    }

    @Test
    void rnrRetryForeverThenLatePost() throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.RC, 16, 8192);
        Side y = f.side(f.b, QpType.RC, 16, 8192);
        Conn c = new Conn();
        c.rnrRetry = 7;
        c.minRnrTimer = 14; // 1.28 ms
        RxeFabric.connectBoth(x, y, c);
        fill(x.buf, 0, 3000, 4);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 3000, x.mr.lkey())));
        assertEquals(null, x.poll(50));
        y.qp.postRecv(new RecvWr().wrId(9).sgList(new Sge(y.mr.iova(), 4096, y.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        WorkCompletion r = y.next(5000);
        assertEquals(3000, r.byteLen());
        assertBytes(x.buf, 0, y.buf, 0, 3000);
        assertTrue(f.ra.counters().get(RxeCounter.RCVD_RNR_ERR) >= 2);
    }

    /**
     * retry_cnt 7 never runs out (rxe_comp.c): a peer that stays silent for far more than 7 ACK timeouts
     * and then comes back gets the message, and the SEND completes successfully.
     */
    @Test
    void retryCntSevenRetriesUntilThePeerComesBack() throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.RC, 16, 8192);
        Side y = f.side(f.b, QpType.RC, 16, 8192);
        Conn c = new Conn();
        c.retryCnt = 7;
        c.timeout = 8; // ~1 ms
        RxeFabric.connectBoth(x, y, c);
        y.qp.postRecv(new RecvWr().wrId(9).sgList(new Sge(y.mr.iova(), 8192, y.mr.lkey())));
        f.wire.detach(f.rb);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 3000, x.mr.lkey())));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR) < 20 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR) >= 20, "retries stopped early");
        f.wire.attach(f.rb);
        WorkCompletion w = x.next(5000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(1, w.wrId());
        WorkCompletion r = y.next(5000);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(3000, r.byteLen());
        assertEquals(0, f.ra.counters().get(RxeCounter.RETRY_EXCEEDED_ERR));
    }

    /**
     * ... but not forever: a peer silent for longer than the retry_cnt-7 limit (30 s by default, 300 ms here) is
     * gone (a crashed node, a kill -9 of its JVM), and the WQE completes RETRY_EXC_ERR instead of hanging the QP.
     */
    @Test
    void retryCntSevenGivesUpOnAPeerSilentPastTheLimit() throws Exception {
        long was = RxeParams.retry7LimitNanos;
        RxeParams.retry7LimitNanos = 300_000_000L;
        try {
            Side x = peerGoneAfterConnect(7)[0];
            long t0 = System.nanoTime();
            x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())));
            WorkCompletion w = x.next(10_000);
            assertEquals(WcStatus.RETRY_EXC_ERR, w.status());
            assertTrue(System.nanoTime() - t0 >= 300_000_000L, "not before the limit");
            assertTrue(f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR) > 7, "more than 7 retries first");
            assertEquals(1, f.ra.counters().get(RxeCounter.RETRY_EXCEEDED_ERR));
            assertEquals(QpState.ERR, x.qp.query().state());
        } finally {
            RxeParams.retry7LimitNanos = was;
        }
    }

    /** An RC pair with {@code retryCnt} and a ~1 ms ACK timeout whose b side is then cut off the wire: {x, y}. */
    private Side[] peerGoneAfterConnect(int retryCnt) throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.RC, 16, 8192);
        Side y = f.side(f.b, QpType.RC, 16, 8192);
        Conn c = new Conn();
        c.retryCnt = retryCnt;
        c.timeout = 8; // ~1 ms
        RxeFabric.connectBoth(x, y, c);
        f.wire.detach(f.rb);
        return new Side[] {x, y};
    }

    @Test
    void peerGoneRetryExceeded() throws Exception {
        Side[] s = peerGoneAfterConnect(3);
        Side x = s[0];
        Side y = s[1];
        long t0 = System.nanoTime();
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey()));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sgList(new Sge(x.mr.iova(), 64, x.mr.lkey())));
        WorkCompletion w = x.next(5000);
        assertEquals(WcStatus.RETRY_EXC_ERR, w.status());
        assertEquals(WcStatus.WR_FLUSH_ERR, x.next(1000).status());
        assertEquals(3, f.ra.counters().get(RxeCounter.COMPLETER_RETRY_ERR));
        assertEquals(1, f.ra.counters().get(RxeCounter.RETRY_EXCEEDED_ERR));
        assertTrue(System.nanoTime() - t0 < 2_000_000_000L);
    }
}
