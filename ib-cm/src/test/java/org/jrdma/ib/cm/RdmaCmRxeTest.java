package org.jrdma.ib.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.impl.RdmaCmService;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM between two hw-rxe devices on real UDP (loopback addresses 127.X.Y.1 and .2): listen,
 * resolve, connect, accept, data over the connected RC QPs, disconnect; rejects and unreachable peers.
 */
class RdmaCmRxeTest {
    static final IbClient OWNER = new IbClient() {
        @Override
        public String name() {
            return "cm-test";
        }

        @Override
        public void add(IbDevice device) {
        }

        @Override
        public void remove(IbDevice device, Object clientData) {
        }
    };

    IbCore core;
    RxeNetDevice ra;
    RxeNetDevice rb;
    MadLayer mad;
    RdmaCmService cm;
    String net;
    final BlockingQueue<RdmaCmEvent> serverEvents = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaCmEvent> clientEvents = new LinkedBlockingQueue<>();

    @BeforeEach
    void up() {
        core = IbCore.newInstance();
        net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
        ra = RxeNetDevice.open(core.registrar(), "cma%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "cmb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
        diag = this::diagnostics;
    }

    /** What a missing event leaves to go on: CM, MAD and wire counters and the stacks of the threads involved. */
    static volatile java.util.function.Supplier<String> diag = () -> "";

    String diagnostics() {
        StringBuilder b = new StringBuilder("\ncm ").append(cm.counters());
        for (RxeNetDevice d : List.of(ra, rb)) {
            b.append("\n").append(d.ibDevice().name()).append(" mad ").append(mad.counters(d.ibDevice(), 1))
                    .append(" wire sent ").append(d.wire().sent).append(" received ").append(d.wire().received)
                    .append(" unroutable ").append(d.wire().unroutable).append(" errors ").append(d.wire().sendErrors);
        }
        Thread.getAllStackTraces().forEach((t, st) -> {
            String n = t.getName();
            if (n.startsWith("ib-mad") || n.startsWith("rdma-cm") || n.startsWith(NettyWire.THREAD_PREFIX)
                    || n.startsWith("rxe")) {
                b.append("\n\"").append(n).append("\" ").append(t.getState());
                for (int i = 0; i < Math.min(st.length, 12); i++) {
                    b.append("\n    at ").append(st[i]);
                }
            }
        });
        return b.toString();
    }

    @AfterEach
    void down() {
        cm.close();
        mad.close();
        ra.close();
        rb.close();
    }

    /** One side's verbs: PD, CQ, RC QP through the id, one registered buffer. */
    static final class Side {
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        MemoryRegion mr;

        Side() {
        }

        Side(RdmaCmId id) {
            pd = id.device().allocPd(OWNER);
            cq = id.device().createCq(OWNER, new CqInitAttr().cqe(16));
            qp = id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
            mr = pd.regMr(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        }

        void release(RdmaCmId id) {
            id.destroyQp();
            mr.dereg();
            cq.destroy();
            pd.dealloc();
        }

        WorkCompletion await() throws InterruptedException {
            WorkCompletion[] wc = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < end) {
                if (cq.poll(wc) == 1) {
                    return wc[0];
                }
                Thread.sleep(1);
            }
            throw new AssertionError("no completion in 10 s");
        }
    }

    static RdmaCmEvent next(BlockingQueue<RdmaCmEvent> q, RdmaCmEventType want) throws InterruptedException {
        RdmaCmEvent e = q.poll(15, TimeUnit.SECONDS);
        assertNotNull(e, () -> "no event, expected " + want + diag.get());
        assertEquals(want, e.type(), "event " + e);
        return e;
    }

    RdmaCmId listen(int port, java.util.function.Function<RdmaCmEvent, Integer> onRequest) throws Exception {
        RdmaCmId l = cm.createId((id, ev) -> {
            serverEvents.add(ev);
            return ev.type() == RdmaCmEventType.CONNECT_REQUEST ? onRequest.apply(ev) : 0;
        }, RdmaPortSpace.TCP);
        l.bindAddr(new InetSocketAddress(InetAddress.getByName(net + "2"), port));
        l.listen(8);
        return l;
    }

    RdmaCmId resolve(int port) throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(net + "1"), 0),
                new InetSocketAddress(InetAddress.getByName(net + "2"), port), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        assertEquals(ra.ibDevice(), c.device());
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_RESOLVED);
        return c;
    }

    @Test
    void connectSendDisconnect() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = listen(7174, ev -> {
            server[0] = new Side(ev.id());
            server[0].qp.postRecv(new RecvWr().wrId(7).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
            assertEquals("hello from the client", new String(ev.param().privateData(), 0, 21, StandardCharsets.US_ASCII));
            ev.id().accept(new RdmaConnParam().privateData("welcome".getBytes(StandardCharsets.US_ASCII)));
            return 0;
        });
        RdmaCmId c = resolve(7174);
        Side client = new Side(c);
        c.connect(new RdmaConnParam().privateData("hello from the client".getBytes(StandardCharsets.US_ASCII)));

        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(new InetSocketAddress(InetAddress.getByName(net + "1"), c.localAddr().getPort()), req.id().remoteAddr());
        assertEquals(l, req.listenId());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals("welcome", new String(est.param().privateData(), 0, 7, StandardCharsets.US_ASCII));
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(QpState.RTS, client.qp.state());
        assertEquals(QpState.RTS, server[0].qp.state());

        byte[] msg = "RDMA CM connected these two QPs".getBytes(StandardCharsets.US_ASCII);
        client.buf.put(0, msg);
        client.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(client.mr.iova(), msg.length, client.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, client.await().status());
        WorkCompletion rwc = server[0].await();
        assertEquals(WcStatus.SUCCESS, rwc.status());
        assertEquals(msg.length, rwc.byteLen());
        byte[] got = new byte[msg.length];
        server[0].buf.get(0, got);
        assertArrayEquals(msg, got);

        c.disconnect();
        next(serverEvents, RdmaCmEventType.DISCONNECTED);
        req.id().disconnect(); // sends the DREP
        next(clientEvents, RdmaCmEventType.DISCONNECTED);
        assertEquals(QpState.ERR, client.qp.state());
        next(clientEvents, RdmaCmEventType.TIMEWAIT_EXIT);
        client.release(c);
        c.close();
        server[0].release(req.id());
        req.id().close();
        l.close();
        assertEquals(1L, cm.counters().get("dreq_sent"));
        assertEquals(1L, cm.counters().get("drep_rcvd"));
    }

    /** One side's UD verbs for a UDP id: the QP comes from rdma_create_qp in RTS with RDMA_UDP_QKEY. */
    static Side udSide(RdmaCmId id) {
        Side s = new Side();
        s.pd = id.device().allocPd(OWNER);
        s.cq = id.device().createCq(OWNER, new CqInitAttr().cqe(16));
        s.qp = id.createQp(s.pd, new QpInitAttr().qpType(QpType.UD).cq(s.cq)
                .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
        s.mr = s.pd.regMr(s.buf, Access.LOCAL_WRITE);
        return s;
    }

    @Test
    void udpPortSpaceResolvesTheServiceWithSidrAndSendsDatagrams() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = cm.createId((id, ev) -> {
            if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
                server[0] = udSide(ev.id());
                server[0].qp.postRecv(new RecvWr().wrId(9).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
                assertEquals("who are you", new String(ev.param().privateData(), 0, 11, StandardCharsets.US_ASCII));
                ev.id().accept(new RdmaConnParam().privateData("the UD server".getBytes(StandardCharsets.US_ASCII)));
            }
            serverEvents.add(ev);
            return 0;
        }, RdmaPortSpace.UDP);
        l.bindAddr(new InetSocketAddress(InetAddress.getByName(net + "2"), 7180));
        l.listen(8);
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.UDP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(net + "1"), 0),
                new InetSocketAddress(InetAddress.getByName(net + "2"), 7180), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_RESOLVED);
        Side client = udSide(c);
        assertEquals(QpState.RTS, client.qp.state());
        c.connect(new RdmaConnParam().privateData("who are you".getBytes(StandardCharsets.US_ASCII)));
        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(c.localAddr().getPort(), req.id().remoteAddr().getPort());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(server[0].qp.qpNum(), est.param().qpNum());          // ud.qp_num
        assertEquals(RdmaCmService.RDMA_UDP_QKEY, est.param().qkey());     // ud.qkey
        assertNotNull(est.param().ahAttr());                               // ud.ah_attr
        assertEquals("the UD server", new String(est.param().privateData(), 0, 13, StandardCharsets.US_ASCII));
        assertEquals(1L, cm.counters().get("sidr_req_sent"));
        assertEquals(1L, cm.counters().get("sidr_rep_rcvd"));

        org.jrdma.ib.core.AddressHandle ah = client.pd.createAh(est.param().ahAttr());
        byte[] msg = "a datagram after SIDR".getBytes(StandardCharsets.US_ASCII);
        client.buf.put(0, msg);
        client.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(client.mr.iova(), msg.length, client.mr.lkey()))
                .ud(ah, est.param().qpNum(), est.param().qkey()));
        assertEquals(WcStatus.SUCCESS, client.await().status());
        WorkCompletion rwc = server[0].await();
        assertEquals(WcStatus.SUCCESS, rwc.status());
        assertEquals(msg.length + 40, rwc.byteLen()); // the GRH first
        byte[] got = new byte[msg.length];
        server[0].buf.get(40, got);
        assertArrayEquals(msg, got);
        assertEquals(client.qp.qpNum(), rwc.srcQp());

        ah.destroy();
        c.disconnect(); // a UD id: the QP goes to ERR, nothing is sent
        client.release(c);
        c.close();
        server[0].release(req.id());
        req.id().close();
        l.close();
    }

    @Test
    void sidrToNoListenerIsUnreachable() throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.UDP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(net + "1"), 0),
                new InetSocketAddress(InetAddress.getByName(net + "2"), 7181), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_RESOLVED);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> c.connect(new RdmaConnParam().privateData(new byte[181]))).errno());
        c.connect(new RdmaConnParam().privateData(new byte[180]));
        RdmaCmEvent e = next(clientEvents, RdmaCmEventType.UNREACHABLE);
        assertEquals(1, e.status()); // IB_SIDR_UNSUPPORTED
        c.close();
    }

    @Test
    void rejectCarriesReasonAndPrivateData() throws Exception {
        RdmaCmId l = listen(7175, ev -> {
            ev.id().reject("go away".getBytes(StandardCharsets.US_ASCII));
            return 0;
        });
        RdmaCmId c = resolve(7175);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        RdmaCmEvent rej = next(clientEvents, RdmaCmEventType.REJECTED);
        assertEquals(28, rej.status()); // IB_CM_REJ_CONSUMER_DEFINED
        assertEquals("go away", new String(rej.param().privateData(), 0, 7, StandardCharsets.US_ASCII));
        client.release(c);
        c.close();
        l.close();
    }

    @Test
    void noListenerIsRejectedWithInvalidServiceId() throws Exception {
        RdmaCmId c = resolve(7176);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        RdmaCmEvent rej = next(clientEvents, RdmaCmEventType.REJECTED);
        assertEquals(8, rej.status()); // IB_CM_REJ_INVALID_SERVICE_ID
        assertEquals(1L, cm.counters().get("rej_no_listener"));
        client.release(c);
        c.close();
    }

    @Test
    void handlerReturningNonZeroRejectsAndDestroysTheNewId() throws Exception {
        RdmaCmId l = listen(7177, ev -> 1);
        RdmaCmId c = resolve(7177);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        next(clientEvents, RdmaCmEventType.REJECTED);
        client.release(c);
        c.close();
        l.close();
    }

    @Test
    void wrongStateAndPortInUseAreErrors() throws Exception {
        RdmaCmId l = listen(7178, ev -> 0);
        RdmaCmId other = cm.createId((id, ev) -> 0, RdmaPortSpace.TCP);
        VerbsException e = assertThrows(VerbsException.class,
                () -> other.bindAddr(new InetSocketAddress(InetAddress.getByName(net + "2"), 7178)));
        assertEquals(Errno.EADDRINUSE, e.errno());
        RdmaCmId fresh = cm.createId((id, ev) -> 0, RdmaPortSpace.TCP);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> fresh.connect(new RdmaConnParam())).errno());
        assertEquals(Errno.EADDRNOTAVAIL, assertThrows(VerbsException.class,
                () -> fresh.bindAddr(new InetSocketAddress(InetAddress.getByName("127.255.255.254"), 1))).errno());
        assertNull(fresh.device());
        other.close();
        fresh.close();
        l.close();
    }

    @Test
    void deviceRemovalReachesEveryIdOnIt() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId[] conn = new RdmaCmId[1];
        RdmaCmId l = cm.createId((id, ev) -> {
            serverEvents.add(ev);
            if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
                conn[0] = ev.id();
                server[0] = new Side(ev.id());
                ev.id().accept(new RdmaConnParam());
            } else if (ev.type() == RdmaCmEventType.DEVICE_REMOVAL) {
                server[0].release(id); // what a ULP does: give the device back
            }
            return 0;
        }, RdmaPortSpace.TCP);
        l.bindAddr(new InetSocketAddress(7179)); // wildcard: keeps listening when a device goes
        l.listen(8);
        RdmaCmId c = resolve(7179);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        next(clientEvents, RdmaCmEventType.ESTABLISHED);
        next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        rb.close();
        RdmaCmEvent rm = next(serverEvents, RdmaCmEventType.DEVICE_REMOVAL);
        assertEquals(conn[0], rm.id());
        assertTrue(serverEvents.isEmpty(), "the wildcard listener got no DEVICE_REMOVAL: " + serverEvents);
        conn[0].close();
        client.release(c);
        c.close();
        l.close();
        rb = RxeNetDevice.open(core.registrar(), "cmb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO); // for down()
        List<IbDevice> devs = core.devices();
        assertEquals(2, devs.size());
    }
}
