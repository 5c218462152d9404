package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.hw.rxe.RxeFabric.Side;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.QpAttr;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** UC (no ACKs, lost messages stay lost) and UD (DETH, Q_Key, GRH room, src_qp). */
class RxeUcUdTest {
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

    static void connectUc(Side x, Side y) {
        x.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(RxeFabric.ALL_ACCESS
                & ~(org.jrdma.ib.core.Access.REMOTE_READ | org.jrdma.ib.core.Access.REMOTE_ATOMIC)));
        x.qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).grh(y.gid(), 0))
                .pathMtu(x.dev.queryPort(1).activeMtu()).destQpNum(y.qp.qpNum()).rqPsn(0x123));
        x.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0x123));
    }

    static void upUd(Side x, int qkey) {
        x.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey));
        x.qp.modify(new QpAttr().state(QpState.RTR));
        x.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 4096, MIB})
    void ucSendAndWrite(int len) throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.UC, 16, 2 * MIB + 4096);
        Side y = f.side(f.b, QpType.UC, 16, 2 * MIB + 4096);
        connectUc(x, y);
        connectUc(y, x);
        RxeRcTest.fill(x.buf, 0, len, 11);
        y.qp.postRecv(new RecvWr().wrId(5).sgList(new Sge(y.mr.iova(), MIB, y.mr.lkey())));
        // UC has no RNR: both receives are posted before anything is sent
        y.qp.postRecv(new RecvWr().wrId(6).sgList(new Sge(y.mr.iova(), 16, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(7).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())).remote(y.mr.iova() + MIB + 64, y.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        WorkCompletion r = y.next(5000);
        assertEquals(5, r.wrId());
        assertEquals(len, r.byteLen());
        WorkCompletion r2 = y.next(5000);
        assertEquals(6, r2.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r2.opcode());
        assertEquals(7, r2.immData());
        RxeRcTest.assertBytes(x.buf, 0, y.buf, 0, len);
        RxeRcTest.assertBytes(x.buf, 0, y.buf, MIB + 64, len);
    }

    @Test
    void ucUnderLossNeverHangsAndDeliversWholeMessagesOnly() throws Exception {
        f = new RxeFabric(5, 1500);
        f.wire.faults(new InMemoryWire.Faults(2, 0, 0, 0, 0));
        Side x = f.side(f.a, QpType.UC, 64, 64 * 1024);
        Side y = f.side(f.b, QpType.UC, 64, 64 * 1024);
        connectUc(x, y);
        connectUc(y, x);
        int n = 40;
        for (int i = 0; i < n; i++) {
            y.qp.postRecv(new RecvWr().wrId(i).sgList(new Sge(y.mr.iova() + 32768, 8192, y.mr.lkey())));
        }
        RxeRcTest.fill(x.buf, 0, 8192, 3);
        for (int i = 0; i < n; i++) {
            x.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(x.mr.iova(), 5000, x.mr.lkey())));
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion w = x.next(5000);
            assertEquals(WcStatus.SUCCESS, w.status(), "UC completes at the sender without an ACK");
            assertEquals(i, w.wrId());
        }
        int got = 0;
        WorkCompletion r;
        while ((r = y.poll(100)) != null) {
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(5000, r.byteLen(), "only whole messages complete");
            got++;
        }
        assertTrue(got > 0 && got < n, "some messages lost, some delivered: " + got);
        RxeRcTest.assertBytes(x.buf, 0, y.buf, 32768, 5000);
    }

    @Test
    void udSendWithGrhRoomSrcQpAndQkeyCheck() throws Exception {
        f = new RxeFabric(1, 1500);
        Side x = f.side(f.a, QpType.UD, 16, 8192);
        Side y = f.side(f.b, QpType.UD, 16, 8192);
        upUd(x, 0x1111);
        upUd(y, 0x2222);
        AddressHandle ah = f.ah(x, new AhAttr().portNum(1).grh(y.gid(), 0));
        RxeRcTest.fill(x.buf, 0, 1000, 2);
        y.qp.postRecv(new RecvWr().wrId(1).sgList(new Sge(y.mr.iova(), 1024 + 40, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(10).opcode(WrOpcode.SEND_WITH_IMM).immData(99).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 1000, x.mr.lkey())).ud(ah, y.qp.qpNum(), 0x2222));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        WorkCompletion r = y.next(5000);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(1000 + 40, r.byteLen());
        assertEquals(x.qp.qpNum(), r.srcQp());
        assertTrue((r.wcFlags() & WcFlags.GRH) != 0);
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0);
        assertEquals(99, r.immData());
        RxeRcTest.assertBytes(x.buf, 0, y.buf, 40, 1000);
        // rxe_send_data_in: 20 zero bytes, then the IPv4 header; UDP payload BTH 12 + DETH 8 + ImmDt 4 + 1000 + ICRC 4
        assertIpv4Grh(y.buf, 0, "127.0.0.1", "127.0.0.2", 12 + 8 + 4 + 1000 + 4);
        // a wrong Q_Key is dropped (and counted) at the receiver; the sender never knows
        long dropped = f.rb.counters().get(RxeCounter.RCVD_DROPPED);
        y.qp.postRecv(new RecvWr().wrId(2).sgList(new Sge(y.mr.iova(), 1024 + 40, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(11).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 100, x.mr.lkey())).ud(ah, y.qp.qpNum(), 0x3333));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        assertNull(y.poll(50));
        assertEquals(dropped + 1, f.rb.counters().get(RxeCounter.RCVD_DROPPED));
        // no receive posted beyond the one still waiting: a second send fills it, a third is dropped silently
        x.qp.postSend(new SendWr().wrId(12).opcode(WrOpcode.SEND).sgList(new Sge(x.mr.iova(), 10, x.mr.lkey()))
                .ud(ah, y.qp.qpNum(), 0x2222));
        x.qp.postSend(new SendWr().wrId(13).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 10, x.mr.lkey())).ud(ah, y.qp.qpNum(), 0x2222));
        assertEquals(13, x.next(5000).wrId());
        WorkCompletion r2 = y.next(5000);
        assertEquals(2, r2.wrId());
        assertEquals(50, r2.byteLen());
        assertNull(y.poll(50));
    }

    /** RoCEv2 over IPv6: the 40 bytes are the IPv6 header (the GRH proper). */
    @Test
    void udReceiveOverIpv6GetsTheIpv6HeaderAsGrh() throws Exception {
        f = new RxeFabric(1, 1500, "fd00:6a72::a", "fd00:6a72::b");
        Side x = f.side(f.a, QpType.UD, 16, 8192);
        Side y = f.side(f.b, QpType.UD, 16, 8192);
        upUd(x, 0x1111);
        upUd(y, 0x2222);
        AddressHandle ah = f.ah(x, new AhAttr().portNum(1).grh(y.gid(), 0));
        RxeRcTest.fill(x.buf, 0, 333, 4);
        for (int i = 0; i < 1024; i++) {
            y.buf.put(i, (byte) 0xee);
        }
        y.qp.postRecv(new RecvWr().wrId(1).sgList(new Sge(y.mr.iova(), 1024, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(10).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), 333, x.mr.lkey())).ud(ah, y.qp.qpNum(), 0x2222));
        assertEquals(WcStatus.SUCCESS, x.next(5000).status());
        WorkCompletion r = y.next(5000);
        assertEquals(333 + 40, r.byteLen());
        assertTrue((r.wcFlags() & WcFlags.GRH) != 0);
        RxeRcTest.assertBytes(x.buf, 0, y.buf, 40, 333);
        // BTH 12 + DETH 8 + 333 + pad 3 + ICRC 4
        assertIpv6Grh(y.buf, 0, "fd00:6a72::a", "fd00:6a72::b", 12 + 8 + 333 + 3 + 4);
        assertEquals((byte) 0xee, y.buf.get(40 + 333), "nothing written past the message");
    }

    /**
     * {@code union rdma_network_hdr} for RoCEv2/IPv4 as rxe_resp.c writes it: 20 zero bytes, then an IPv4
     * header from {@code src} to {@code dst} carrying UDP with {@code udpPayload} bytes after the UDP header.
     */
    static void assertIpv4Grh(java.nio.ByteBuffer b, int off, String src, String dst, int udpPayload) throws Exception {
        for (int i = 0; i < 20; i++) {
            assertEquals(0, b.get(off + i), "reserved byte " + i);
        }
        int h = off + 20;
        assertEquals(0x45, b.get(h) & 0xff, "version 4, IHL 5");
        assertEquals(20 + 8 + udpPayload, b.getShort(h + 2) & 0xffff, "total length");
        assertEquals(0x4000, b.getShort(h + 6) & 0xffff, "DF, not fragmented");
        assertEquals(64, b.get(h + 8) & 0xff, "TTL (Linux default; the real one is not visible to a UDP socket)");
        assertEquals(17, b.get(h + 9), "protocol UDP");
        byte[] s = new byte[4];
        byte[] d = new byte[4];
        b.get(h + 12, s);
        b.get(h + 16, d);
        assertEquals(java.net.InetAddress.getByName(src), java.net.InetAddress.getByAddress(s), "source address");
        assertEquals(java.net.InetAddress.getByName(dst), java.net.InetAddress.getByAddress(d), "destination address");
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += b.getShort(h + i) & 0xffff;
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = (sum & 0xffff) + (sum >>> 16);
        assertEquals(0xffff, sum, "the header checksum adds up");
    }

    /** The IPv6 header as the GRH: version 6, payload length, next header UDP, hop limit, addresses. */
    static void assertIpv6Grh(java.nio.ByteBuffer b, int off, String src, String dst, int udpPayload) throws Exception {
        assertEquals(6 << 28, b.getInt(off), "version 6, traffic class 0, flow label 0");
        assertEquals(8 + udpPayload, b.getShort(off + 4) & 0xffff, "payload length");
        assertEquals(17, b.get(off + 6), "next header UDP");
        assertEquals(64, b.get(off + 7) & 0xff, "hop limit");
        byte[] s = new byte[16];
        byte[] d = new byte[16];
        b.get(off + 8, s);
        b.get(off + 24, d);
        assertEquals(java.net.InetAddress.getByName(src), java.net.InetAddress.getByAddress(s), "source address");
        assertEquals(java.net.InetAddress.getByName(dst), java.net.InetAddress.getByAddress(d), "destination address");
    }
}
