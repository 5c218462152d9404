package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetCounter;
import org.jrdma.hw.rxe.net.RxeNetIcrc;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RC SEND, WRITE and READ between two RxeDevices, each on its own {@link NettyWire} (127.0.0.1 and
 * 127.0.0.2 by default; random 127.X.Y.1/.2 here, so that concurrent builds do not collide on 4791; through
 * the kernel's loopback), on NIO and on epoll; byte-exact up to 1 MiB.
 */
class NettyWireRcTest {
    static {
        LeakCheck.install();
    }

    static final int MIB = 1 << 20;
    static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
    final IbClient ulp = new IbClient() {
        public String name() {
            return "netty-test";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };
    IbCore core;
    NettyWire wa;
    NettyWire wb;
    RxeDevice ra;
    RxeDevice rb;
    Side x;
    Side y;

    final class Side {
        final IbDevice dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf = ByteBuffer.allocateDirect(2 * MIB + 4096);
        final MemoryRegion mr;
        final WorkCompletion[] wc = {new WorkCompletion()};

        Side(IbDevice dev) {
            this.dev = dev;
            pd = dev.allocPd(ulp);
            cq = dev.createCq(ulp, new CqInitAttr().cqe(256));
            qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(32).maxRecvWr(32).maxSendSge(2).maxRecvSge(2)));
            mr = pd.regMr(buf, ALL);
        }

        WorkCompletion next(long ms) {
            long end = System.nanoTime() + ms * 1_000_000L;
            while (System.nanoTime() - end < 0) {
                if (cq.poll(wc) == 1) {
                    return new WorkCompletion().copyFrom(wc[0]);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            throw new AssertionError("no completion on " + dev.name() + " within " + ms + " ms; a: " + ra.counters()
                    + " | b: " + rb.counters() + " | wire a sent " + wa.counter(RxeNetCounter.SENT) + " rcvd " + wa.counter(RxeNetCounter.RECEIVED) + " | wire b sent "
                    + wb.counter(RxeNetCounter.SENT) + " rcvd " + wb.counter(RxeNetCounter.RECEIVED));
        }

        void destroy() {
            qp.destroy();
            mr.dereg();
            cq.destroy();
            pd.dealloc();
        }
    }

    void connect(Side s, Side t) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(ALL));
        s.qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).grh(t.dev.queryGid(1, 0), 0))
                .pathMtu(s.dev.queryPort(1).activeMtu()).destQpNum(t.qp.qpNum()).rqPsn(0xfffff0).maxDestRdAtomic(16)
                .minRnrTimer(1));
        s.qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0xfffff0)
                .maxRdAtomic(16));
    }

    void setUp(String transport, int netdevMtu) throws Exception {
        NettyWire.Transport t = NettyWire.Transport.valueOf(transport);
        org.junit.jupiter.api.Assumptions.assumeTrue(t != NettyWire.Transport.EPOLL
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll not available");
        core = IbCore.newInstance();
        String net = NettyRxeTestBed.randomLoopbackNet();
        wa = new NettyWire(t, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "a");
        wb = new NettyWire(t, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "b");
        assertEquals(t == NettyWire.Transport.EPOLL, wa.isEpoll());
        ra = new RxeDevice("rxe%d", List.of(InetAddress.getByName(net + "1")), netdevMtu, 0x02_00_00_00_00_01L, wa);
        rb = new RxeDevice("rxe%d", List.of(InetAddress.getByName(net + "2")), netdevMtu, 0x02_00_00_00_00_02L, wb);
        ra.icrcCheck(RxeNetIcrc.receiveCheck());
        rb.icrcCheck(RxeNetIcrc.receiveCheck());
        wa.attach(ra);
        wb.attach(rb);
        ra.register(core.registrar());
        rb.register(core.registrar());
        core.registerClient(ulp);
        x = new Side(ra.handle().device());
        y = new Side(rb.handle().device());
        connect(x, y);
        connect(y, x);
    }

    @AfterEach
    void tearDown() {
        if (x != null) {
            x.destroy();
            y.destroy();
        }
        if (wa != null) {
            wa.detach(ra);
            wb.detach(rb);
            ra.close();
            if (rb != ra) {
                rb.close();
            }
            wa.close();
            wb.close();
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

    @ParameterizedTest(name = "{0}, netdev MTU {1}, {2} bytes")
    @CsvSource({"NIO,1500,64", "NIO,1500,4097", "NIO,1500,1048576", "EPOLL,1500,64", "EPOLL,1500,1048576",
            "EPOLL,9000,1048576", "NIO,9000,1048576"})
    void sendWriteRead(String transport, int mtu, int len) throws Exception {
        setUp(transport, mtu);
        // SEND
        fill(x.buf, 0, len, 5);
        y.qp.postRecv(new RecvWr().wrId(77).sgList(new Sge(y.mr.iova() + 8, MIB + 100, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())));
        WorkCompletion sc = x.next(10000);
        assertEquals(WcStatus.SUCCESS, sc.status());
        WorkCompletion rc = y.next(10000);
        assertEquals(WcStatus.SUCCESS, rc.status());
        assertEquals(WcOpcode.RECV, rc.opcode());
        assertEquals(len, rc.byteLen());
        assertBytes(x.buf, 0, y.buf, 8, len);
        // WRITE
        fill(x.buf, 0, len, 9);
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())).remote(y.mr.iova() + 16, y.mr.rkey()));
        WorkCompletion w = x.next(10000);
        assertEquals(WcStatus.SUCCESS, w.status());
        assertEquals(WcOpcode.RDMA_WRITE, w.opcode());
        assertBytes(x.buf, 0, y.buf, 16, len);
        // READ it back
        x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova() + MIB + 64, len, x.mr.lkey())).remote(y.mr.iova() + 16, y.mr.rkey()));
        WorkCompletion r = x.next(10000);
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RDMA_READ, r.opcode());
        assertEquals(len, r.byteLen());
        assertBytes(x.buf, 0, x.buf, MIB + 64, len);
        assertTrue(wa.counter(RxeNetCounter.RECEIVED) > 0 && wb.counter(RxeNetCounter.RECEIVED) > 0, "packets went through the sockets");
        if (wa.isEpoll() || Runtime.version().feature() >= 19) {
            assertTrue(wa.dontFragment(ra.addresses().get(0)), "IPv4 sockets send with IP_PMTUDISC_DO (IP ID 0)");
        }
        assertEquals(0, ra.counters().get(RxeCounter.RCVD_ICRC_ERR) + rb.counters().get(RxeCounter.RCVD_ICRC_ERR));
        // the same counters through ib-core, as rdma statistic shows them
        java.util.Map<String, Long> stats = x.dev.queryHwStats(1);
        assertEquals(java.util.List.of("sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request"),
                new java.util.ArrayList<>(stats.keySet()).subList(0, 4));
        assertEquals(ra.counters().get(RxeCounter.SENT_PKTS) + rb.counters().get(RxeCounter.SENT_PKTS),
                x.dev.queryHwStats(1).get("sent_pkts") + y.dev.queryHwStats(1).get("sent_pkts"));
        assertTrue(stats.get("sent_pkts") > 0 && stats.get("rcvd_pkts") > 0, "packets counted: " + stats);
    }

    /** 64 MiB of 1 MiB RDMA WRITEs, one at a time; prints the rate and the counters (no rate assertion). */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"NIO", "EPOLL"})
    void writeRate(String transport) throws Exception {
        setUp(transport, 1500);
        long t0 = System.nanoTime();
        for (int i = 0; i < 64; i++) {
            x.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(x.mr.iova(), MIB, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, x.next(20000).status());
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("NettyWire " + transport + ": 64 MiB RDMA WRITE in " + ms + " ms (" + (64_000 / Math.max(ms, 1))
                + " MiB/s); a: " + ra.counters() + " | b: " + rb.counters() + " | wire a sent " + wa.counter(RxeNetCounter.SENT) + " errors "
                + wa.counter(RxeNetCounter.ERRORS) + " | wire b rcvd " + wb.counter(RxeNetCounter.RECEIVED));
    }

    /** IPv6: two QPs of one device on ::1 (the host has one IPv6 loopback address), SEND and READ over UDP/IPv6. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"NIO", "EPOLL"})
    void ipv6Loopback(String transport) throws Exception {
        NettyWire.Transport t = NettyWire.Transport.valueOf(transport);
        org.junit.jupiter.api.Assumptions.assumeTrue(t != NettyWire.Transport.EPOLL
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll not available");
        core = IbCore.newInstance();
        wa = new NettyWire(t, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "v6");
        wb = wa;
        ra = new RxeDevice("rxe%d", List.of(InetAddress.getByName("::1")), 1500, 0x02_00_00_00_00_06L, wa);
        rb = ra;
        ra.icrcCheck(RxeNetIcrc.receiveCheck());
        try {
            wa.attach(ra);
        } catch (IllegalStateException e) {
            org.junit.jupiter.api.Assumptions.abort("no IPv6 loopback: " + e.getMessage());
        }
        ra.register(core.registrar());
        core.registerClient(ulp);
        x = new Side(ra.handle().device());
        y = new Side(ra.handle().device());
        connect(x, y);
        connect(y, x);
        int len = 100_000;
        fill(x.buf, 0, len, 3);
        y.qp.postRecv(new RecvWr().wrId(5).sgList(new Sge(y.mr.iova(), MIB, y.mr.lkey())));
        x.qp.postSend(new SendWr().wrId(6).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova(), len, x.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, x.next(10000).status());
        assertEquals(WcStatus.SUCCESS, y.next(10000).status());
        assertBytes(x.buf, 0, y.buf, 0, len);
        x.qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(x.mr.iova() + MIB, len, x.mr.lkey())).remote(y.mr.iova(), y.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, x.next(10000).status());
        assertBytes(x.buf, 0, x.buf, MIB, len);
        assertEquals(0, ra.counters().get(RxeCounter.RCVD_ICRC_ERR));
        assertTrue(wa.counter(RxeNetCounter.RECEIVED) > 0);
    }
}
