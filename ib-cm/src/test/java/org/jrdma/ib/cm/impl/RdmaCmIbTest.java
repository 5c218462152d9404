package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.tools.Rping;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRejReason;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
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
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sm.SubnetManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM on InfiniBand ports: two one-port hw-loopback devices on a managed fabric, the SM and SA on
 * the first; addresses are the ports' GIDs written as IPv6 addresses; routes come from the SA.
 */
class RdmaCmIbTest {
    static final IbClient OWNER = new IbClient() {
        @Override
        public String name() {
            return "cm-ib-test";
        }

        @Override
        public void add(IbDevice device) {
        }

        @Override
        public void remove(IbDevice device, Object clientData) {
        }
    };

    IbCore core;
    LoopbackFabric fabric;
    final List<LoopbackDevice> los = new ArrayList<>();
    IbDevice dev0;
    IbDevice dev1;
    MadLayer mad;
    SubnetManager sm;
    SaClientImpl sa;
    RdmaCmService cm;
    final BlockingQueue<RdmaCmEvent> serverEvents = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaCmEvent> clientEvents = new LinkedBlockingQueue<>();

    @BeforeEach
    void up() throws Exception {
        core = IbCore.newInstance();
        fabric = LoopbackFabric.managed();
        dev0 = add();
        dev1 = add();
        mad = new MadLayer(core);
        sm = new SubnetManager(mad, dev0, 1, LoopbackFabric.LINK_LID_BASE, 0).start(0);
        sm.sweepNow();
        sa = new SaClientImpl(mad);
        cm = new RdmaCmService(core, mad, sa);
        assertEquals(1, dev0.queryPort(1).lid());
        assertEquals(2, dev1.queryPort(1).lid());
    }

    IbDevice add() {
        LoopbackDevice lo = new LoopbackDevice(fabric, "ibcm%d", 1, 0);
        los.add(lo);
        return lo.register(core.registrar()).device();
    }

    @AfterEach
    void down() {
        cm.close();
        sa.close();
        if (sm != null) {
            sm.close();
        }
        mad.close();
        for (LoopbackDevice lo : los) {
            lo.close();
        }
    }

    static InetAddress gidAddr(IbDevice d) {
        return d.queryGid(1, 0).toInetAddress();
    }

    /** One side's verbs: PD, CQ, RC QP through the id, one registered buffer. */
    static final class Side {
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        MemoryRegion mr;

        Side(RdmaCmId id, QpType type) {
            pd = id.device().allocPd(OWNER);
            cq = id.device().createCq(OWNER, new CqInitAttr().cqe(16));
            qp = id.createQp(pd, new QpInitAttr().qpType(type).cq(cq)
                    .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
            mr = pd.regMr(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        }

        Side(RdmaCmId id) {
            this(id, QpType.RC);
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
        assertNotNull(e, "no event, expected " + want);
        assertEquals(want, e.type(), "event " + e);
        return e;
    }

    RdmaCmId listen(RdmaPortSpace ps, int port, java.util.function.Function<RdmaCmEvent, Integer> onRequest)
            throws Exception {
        RdmaCmId l = cm.createId((id, ev) -> {
            serverEvents.add(ev);
            return ev.type() == RdmaCmEventType.CONNECT_REQUEST ? onRequest.apply(ev) : 0;
        }, ps);
        l.bindAddr(new InetSocketAddress(gidAddr(dev1), port));
        assertEquals(dev1, l.device());
        l.listen(8);
        return l;
    }

    RdmaCmId resolve(RdmaPortSpace ps, InetAddress dst, int port) throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, ps);
        c.resolveAddr(null, new InetSocketAddress(dst, port), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        // no source given: the first active IB port with the destination's subnet prefix
        assertEquals(dev0, c.device());
        assertEquals(1, c.portNum());
        assertEquals(gidAddr(dev0), c.localAddr().getAddress());
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_RESOLVED);
        return c;
    }

    @Test
    void connectSendDisconnectOverInfiniBand() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7174, ev -> {
            server[0] = new Side(ev.id());
            server[0].qp.postRecv(new RecvWr().wrId(7).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
            assertEquals("hello over IB", new String(ev.param().privateData(), 0, 13, StandardCharsets.US_ASCII));
            ev.id().accept(new RdmaConnParam().privateData("welcome".getBytes(StandardCharsets.US_ASCII)));
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.TCP, gidAddr(dev1), 7174);
        Side client = new Side(c);
        c.connect(new RdmaConnParam().privateData("hello over IB".getBytes(StandardCharsets.US_ASCII)));

        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(new InetSocketAddress(gidAddr(dev0), c.localAddr().getPort()), req.id().remoteAddr());
        assertEquals(new InetSocketAddress(gidAddr(dev1), 7174), req.id().localAddr());
        assertEquals(dev1, req.id().device());
        assertEquals(l, req.listenId());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals("welcome", new String(est.param().privateData(), 0, 7, StandardCharsets.US_ASCII));
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(QpState.RTS, client.qp.state());
        assertEquals(QpState.RTS, server[0].qp.state());
        // both QPs: LID-routed, no GRH inside the subnet
        QpAttr ca = client.qp.query();
        QpAttr sa2 = server[0].qp.query();
        assertEquals(2, ca.av().dlid());
        assertNull(ca.av().grh());
        assertEquals(1, sa2.av().dlid());
        assertNull(sa2.av().grh());

        byte[] msg = "RDMA CM connected these two QPs over InfiniBand".getBytes(StandardCharsets.US_ASCII);
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
        next(serverEvents, RdmaCmEventType.TIMEWAIT_EXIT);
        client.release(c);
        c.close();
        server[0].release(req.id());
        req.id().close();
        l.close();
        assertEquals(1L, cm.counters().get("dreq_sent"));
        assertEquals(1L, cm.counters().get("drep_rcvd"));
        assertEquals(1L, cm.counters().get("route_resolved"));
        assertEquals(0, cm.idCount());
    }

    @Test
    void rejectCarriesReasonAndPrivateData() throws Exception {
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7175, ev -> {
            ev.id().reject("go away".getBytes(StandardCharsets.US_ASCII));
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.TCP, gidAddr(dev1), 7175);
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
        RdmaCmId c = resolve(RdmaPortSpace.TCP, gidAddr(dev1), 7176);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        RdmaCmEvent rej = next(clientEvents, RdmaCmEventType.REJECTED);
        assertEquals(8, rej.status()); // IB_CM_REJ_INVALID_SERVICE_ID
        assertEquals(1L, cm.counters().get("rej_no_listener"));
        client.release(c);
        c.close();
    }

    @Test
    void unknownGidIsARouteErrorWithTheSaStatus() throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        InetAddress nobody = InetAddress.getByName("fe80::6a72:646d:dead:beef");
        c.resolveAddr(null, new InetSocketAddress(nobody, 7177), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        assertEquals(dev0, c.device());
        c.resolveRoute(2000);
        RdmaCmEvent e = next(clientEvents, RdmaCmEventType.ROUTE_ERROR);
        assertEquals(-Errno.EINVAL.value(), e.status()); // ERR_REQ_INVALID_GID: sa_query.c's -EINVAL
        // back in ADDR_RESOLVED: the route may be asked for again
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_ERROR);
        c.close();
    }

    /**
     * The SM (and its SA) stopped: the port still has the SM LID, the SA's port answers the Get with MAD
     * status 0x000c (mad.c's generate_unmatched_resp: no agent claims class 0x03), which sa_query.c hands
     * to cma as -EINVAL.
     */
    @Test
    void stoppedSmIsARouteError() throws Exception {
        sm.close();
        sm = null;
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(null, new InetSocketAddress(gidAddr(dev1), 7178), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(300);
        RdmaCmEvent e = next(clientEvents, RdmaCmEventType.ROUTE_ERROR);
        assertEquals(-Errno.EINVAL.value(), e.status());
        assertEquals(1L, cm.counters().get("route_error"));
        c.close();
    }

    @Test
    void withoutAnSaClientTheRouteFails() throws Exception {
        cm.saClient(null);
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(null, new InetSocketAddress(gidAddr(dev1), 7179), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(300);
        assertEquals(-Errno.ENODEV.value(), next(clientEvents, RdmaCmEventType.ROUTE_ERROR).status());
        c.close();
    }

    @Test
    void unknownSubnetPrefixIsAnAddressError() throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        // a GID of another subnet: no IB port has its prefix, and no host route leads to an RDMA device
        c.resolveAddr(null, new InetSocketAddress(InetAddress.getByName("fec0::1"), 1), 2000);
        assertEquals(RdmaCmEventType.ADDR_ERROR, clientEvents.poll(15, TimeUnit.SECONDS).type());
        c.close();
    }

    @Test
    void sidrAndUdDatagramsOverInfiniBand() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = listen(RdmaPortSpace.UDP, 7180, ev -> {
            server[0] = new Side(ev.id(), QpType.UD);
            server[0].qp.postRecv(new RecvWr().wrId(9).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
            ev.id().accept(new RdmaConnParam());
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.UDP, gidAddr(dev1), 7180);
        Side client = new Side(c, QpType.UD);
        c.connect(new RdmaConnParam().privateData("who are you".getBytes(StandardCharsets.US_ASCII)));
        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(new InetSocketAddress(gidAddr(dev0), c.localAddr().getPort()), req.id().remoteAddr());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(server[0].qp.qpNum(), est.param().qpNum());
        AhAttr av = est.param().ahAttr();
        assertEquals(2, av.dlid());
        assertNull(av.grh());
        org.jrdma.ib.core.AddressHandle ah = client.pd.createAh(av);
        byte[] msg = "a datagram after SIDR on IB".getBytes(StandardCharsets.US_ASCII);
        client.buf.put(0, msg);
        client.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(client.mr.iova(), msg.length, client.mr.lkey()))
                .ud(ah, est.param().qpNum(), est.param().qkey()));
        assertEquals(WcStatus.SUCCESS, client.await().status());
        WorkCompletion rwc = server[0].await();
        assertEquals(WcStatus.SUCCESS, rwc.status());
        assertEquals(msg.length + 40, rwc.byteLen()); // 40 bytes for a GRH, none present
        byte[] got = new byte[msg.length];
        server[0].buf.get(40, got);
        assertArrayEquals(msg, got);
        ah.destroy();
        c.disconnect();
        client.release(c);
        c.close();
        server[0].release(req.id());
        req.id().close();
        l.close();
    }

    @Test
    void deviceRemovalReachesTheConnection() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId[] conn = new RdmaCmId[1];
        RdmaCmId l = cm.createId((id, ev) -> {
            serverEvents.add(ev);
            if (ev.type() == RdmaCmEventType.CONNECT_REQUEST) {
                conn[0] = ev.id();
                server[0] = new Side(ev.id());
                ev.id().accept(new RdmaConnParam());
            } else if (ev.type() == RdmaCmEventType.DEVICE_REMOVAL) {
                server[0].release(id);
            }
            return 0;
        }, RdmaPortSpace.TCP);
        l.bindAddr(new InetSocketAddress(7181)); // wildcard
        l.listen(8);
        RdmaCmId c = resolve(RdmaPortSpace.TCP, gidAddr(dev1), 7181);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        next(clientEvents, RdmaCmEventType.ESTABLISHED);
        next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        los.get(1).close();
        RdmaCmEvent rm = next(serverEvents, RdmaCmEventType.DEVICE_REMOVAL);
        assertEquals(conn[0], rm.id());
        conn[0].close();
        client.release(c);
        c.close();
        l.close();
    }

    /** The REQ on the wire: LID-routed on QP1, the SA's path in the primary path, as cm_format_req for IB. */
    @Test
    void theReqIsLidRoutedAndCarriesThePath() throws Exception {
        // a raw CM peer: a third port on the fabric with its own ib-core and MAD layer
        IbCore core2 = IbCore.newInstance();
        LoopbackDevice lo = new LoopbackDevice(fabric, "ibraw%d", 1, 0);
        IbDevice raw = lo.register(core2.registrar()).device();
        MadLayer mad2 = new MadLayer(core2);
        BlockingQueue<MadRecv> got = new LinkedBlockingQueue<>();
        MadAgent agent = mad2.registerAgent(raw, 1, QpType.GSI,
                new MadRegistration(Mad.CLASS_CM, CmAttr.CLASS_VERSION, Mad.METHOD_SEND), new MadHandler() {
                    @Override
                    public void recv(MadAgent a, MadRecv r) {
                        got.add(r);
                    }
                });
        try {
            sm.sweepNow();
            assertEquals(3, raw.queryPort(1).lid());
            RdmaCmId c = resolve(RdmaPortSpace.TCP, gidAddr(raw), 7182);
            Side client = new Side(c);
            c.connect(new RdmaConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7)
                    .privateData("x".getBytes(StandardCharsets.US_ASCII)));
            MadRecv r = got.poll(10, TimeUnit.SECONDS);
            assertNotNull(r, "no REQ");
            assertNull(r.sgid(), "no GRH inside the subnet");
            assertEquals(1, r.slid());
            assertEquals(1, r.srcQp());
            CmReq req = CmReq.decode(r.mad());
            CmPath p = req.primaryPath();
            assertEquals(1, p.localLid());
            assertEquals(3, p.remoteLid());
            assertEquals(dev0.queryGid(1, 0), p.localGid());
            assertEquals(raw.queryGid(1, 0), p.remoteGid());
            assertTrue(p.subnetLocal());
            assertEquals(0, p.sl());
            assertEquals(0, p.hopLimit());
            assertEquals(16, p.packetRate(), "the SA's rate: 4X EDR");
            assertEquals(5, req.pathMtu(), "the SA's MTU: 4096");
            // cm_ack_timeout(ca_ack_delay 15, packet life 0x12) = 19
            assertEquals(RdmaCmService.cmAckTimeout(dev0.queryDevice().localCaAckDelay(), 0x12), p.localAckTimeout());
            assertEquals(19, p.localAckTimeout());
            assertEquals(0xffff, req.pkey());
            assertEquals(c.qp().qpNum(), req.localQpn());
            assertEquals(dev0.nodeGuid(), req.localCaGuid());
            assertEquals(RdmaPortSpace.TCP.serviceId(7182), req.serviceId());
            CmaHeader h = CmaHeader.decode(req.privateData());
            assertEquals(6, h.ipVersion());
            assertEquals(gidAddr(dev0), h.srcAddr());
            assertEquals(gidAddr(raw), h.dstAddr());
            assertEquals(c.localAddr().getPort(), h.port());
            assertNull(req.alternatePath());

            // answer with a REJ to the SLID (no GRH): the id is rejected
            CmRej rej = new CmRej().localCommId(0).remoteCommId(req.localCommId())
                    .reason(CmRejReason.INVALID_SERVICE_ID.code());
            agent.send(new MadSend(rej.encode(r.mad().tid())).ah(agent.ahAttrFromWc(r)).remoteQpn(1));
            assertEquals(8, next(clientEvents, RdmaCmEventType.REJECTED).status());
            client.release(c);
            c.close();
        } finally {
            agent.close();
            mad2.close();
            lo.close();
        }
    }

    /** {@code rdma res} less the MAD layer's own resources. */
    static List<org.jrdma.ib.core.ResourceInfo> mine(IbDevice d) {
        return d.resources().stream().filter(r -> !"mad".equals(r.owner())).toList();
    }

    /** rping over the loopback IB fabric with GIDs as addresses, both sides exiting 0. */
    @Test
    void rpingWithGidsAsAddresses() throws Exception {
        String server = gidAddr(dev1).getHostAddress();
        ByteArrayOutputStream sout = new ByteArrayOutputStream();
        ByteArrayOutputStream serr = new ByteArrayOutputStream();
        int[] sstatus = {-1};
        Thread st = new Thread(() -> sstatus[0] = Rping.run(cm, new PrintStream(sout, true), new PrintStream(serr, true),
                "-s", "-a", server, "-C", "10", "-S", "4096", "-V", "-v"), "rping-server");
        st.setDaemon(true);
        st.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cm.listening(RdmaPortSpace.TCP, Rping.PORT)) {
            assertTrue(System.nanoTime() < end && st.isAlive(), "server not listening: " + serr);
            Thread.sleep(5);
        }
        ByteArrayOutputStream cout = new ByteArrayOutputStream();
        ByteArrayOutputStream cerr = new ByteArrayOutputStream();
        int cstatus = Rping.run(cm, new PrintStream(cout, true), new PrintStream(cerr, true),
                "-c", "-a", server, "-C", "10", "-S", "4096", "-V", "-v");
        st.join(20_000);
        assertFalse(st.isAlive(), "server still running: " + sout + serr);
        assertEquals(0, cstatus, "client: " + cout + cerr);
        assertEquals(0, sstatus[0], "server: " + sout + serr);
        String c = cout.toString(StandardCharsets.ISO_8859_1);
        assertTrue(c.contains("ping data: rdma-ping-0: "), c);
        assertTrue(c.contains("ping data: rdma-ping-9: "), c);
        assertTrue(sout.toString(StandardCharsets.ISO_8859_1).contains("server ping data: rdma-ping-9: "), sout.toString());
        Thread.sleep(700); // TIMEWAIT of both ids
        assertEquals(0, cm.idCount());
        assertEquals(List.of(), mine(dev0));
        assertEquals(List.of(), mine(dev1));
    }
}
