package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import org.jrdma.ib.cm.wire.CmTimeout;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sm.SubnetManager;
import org.jrdma.testsupport.ToolRun;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM scenarios on InfiniBand ports: two one-port hw-loopback devices on a managed fabric, the SM and
 * SA on the first; addresses are the ports' GIDs written as IPv6 addresses; routes come from the SA. Besides
 * the scenarios of every fabric, what only InfiniBand has: SA route errors, the REQ as LID-routed on the
 * wire, rping with GIDs as addresses.
 */
class RdmaCmIbTest extends AbstractRdmaCmScenarioTest {
    LoopbackFabric fabric;
    final List<LoopbackDevice> los = new ArrayList<>();
    IbDevice dev0;
    IbDevice dev1;
    SubnetManager sm;
    SaClientImpl sa;

    @Override
    void openDevices() {
        fabric = LoopbackFabric.managed();
        dev0 = add();
        dev1 = add();
    }

    IbDevice add() {
        LoopbackDevice lo = new LoopbackDevice(fabric, "ibcm%d", 1, 0);
        los.add(lo);
        return lo.register(core.registrar()).device();
    }

    /** The SM on the first port, a sweep, the SA client for the CM's routes. */
    @Override
    RdmaCmService openCm() throws Exception {
        sm = new SubnetManager(mad, dev0, 1, LoopbackFabric.LINK_LID_BASE, 0).start(0);
        sm.sweepNow();
        sa = new SaClientImpl(mad);
        assertEquals(1, dev0.queryPort(1).lid());
        assertEquals(2, dev1.queryPort(1).lid());
        return new RdmaCmService(core, mad, sa);
    }

    @Override
    void closeServices() {
        sa.close();
        if (sm != null) {
            sm.close();
        }
    }

    @Override
    void closeDevices() {
        for (LoopbackDevice lo : los) {
            lo.close();
        }
    }

    @Override
    IbDevice clientDevice() {
        return dev0;
    }

    @Override
    IbDevice serverDevice() {
        return dev1;
    }

    @Override
    InetAddress clientAddr() {
        return gidAddr(dev0);
    }

    @Override
    InetAddress serverAddr() {
        return gidAddr(dev1);
    }

    /** None: the first active IB port with the destination's subnet prefix, which is the first device's. */
    @Override
    InetAddress resolveSource() {
        return null;
    }

    @Override
    boolean routesFromSa() {
        return true;
    }

    @Override
    void removeServerDevice() {
        los.get(1).close();
    }

    /** Inside the subnet both QPs are LID-routed, without GRH. */
    @Override
    void checkConnectedPaths(QpAttr client, QpAttr server) {
        assertEquals(2, client.av().dlid());
        assertNull(client.av().grh());
        assertEquals(1, server.av().dlid());
        assertNull(server.av().grh());
    }

    @Override
    void checkUdAhAttr(AhAttr av) {
        assertEquals(2, av.dlid());
        assertNull(av.grh());
    }

    /** Each port as the SM left it. */
    @Override
    void fabricDiagnostics(StringBuilder b) {
        for (IbDevice d : List.of(dev0, dev1)) {
            try {
                PortAttr p = d.queryPort(1);
                b.append("\n").append(d.name()).append(" port 1 ").append(p.state()).append(" lid ").append(p.lid())
                        .append(" sm lid ").append(p.smLid());
            } catch (RuntimeException e) {
                b.append("\n").append(d.name()).append(" port 1: ").append(e);
            }
        }
    }

    @Override
    List<String> fabricThreads() {
        return List.of("loopback", "ib-sm");
    }

    static InetAddress gidAddr(IbDevice d) {
        return d.queryGid(1, 0).toInetAddress();
    }

    /** The address a peer port is connected to by (here its GID; a subclass may give it an IP address). */
    InetAddress addrOf(IbDevice d) {
        return gidAddr(d);
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
        assertEquals(1L, cm.counters().get(CmCounter.ROUTE_ERROR));
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
        next(clientEvents, RdmaCmEventType.ADDR_ERROR);
        c.close();
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
            RdmaCmId c = resolve(RdmaPortSpace.TCP, addrOf(raw), 7182);
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
            assertEquals(CmTimeout.ackTimeout(dev0.queryDevice().localCaAckDelay(), 0x12), p.localAckTimeout());
            assertEquals(19, p.localAckTimeout());
            assertEquals(0xffff, req.pkey());
            assertEquals(c.qp().qpNum(), req.localQpn());
            assertEquals(dev0.nodeGuid(), req.localCaGuid());
            assertEquals(RdmaPortSpace.TCP.serviceId(7182), req.serviceId());
            CmaHeader h = CmaHeader.decode(req.privateData());
            assertEquals(clientAddr() instanceof Inet4Address ? 4 : 6, h.ipVersion());
            assertEquals(clientAddr(), h.srcAddr());
            assertEquals(addrOf(raw), h.dstAddr());
            assertEquals(c.localAddr().getPort(), h.port());
            assertNull(req.alternatePath());

            // answer with a REJ to the SLID (no GRH): the id is rejected
            CmRej rej = new CmRej().localCommId(0).remoteCommId(req.localCommId())
                    .reason(IbCmRejReason.INVALID_SERVICE_ID.code());
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

    /** rping over the loopback IB fabric to the server's address, both sides exiting 0. */
    @Test
    void rpingToTheServersAddress() throws Exception {
        String server = serverAddr().getHostAddress();
        ToolRun s = ToolRun.start("rping-server", StandardCharsets.ISO_8859_1,
                (o, e) -> Rping.run(cm, o, e, "-s", "-a", server, "-C", "10", "-S", "4096", "-V", "-v"));
        s.awaitUntil(() -> cm.listening(RdmaPortSpace.TCP, Rping.PORT), "server listening", 10);
        ToolRun c = ToolRun.start("rping-client", StandardCharsets.ISO_8859_1,
                (o, e) -> Rping.run(cm, o, e, "-c", "-a", server, "-C", "10", "-S", "4096", "-V", "-v"));
        assertEquals(0, c.await(20), "client: " + c.out() + c.err());
        assertEquals(0, s.await(20), "server: " + s.out() + s.err());
        assertTrue(c.out().contains("ping data: rdma-ping-0: "), c.out());
        assertTrue(c.out().contains("ping data: rdma-ping-9: "), c.out());
        assertTrue(s.out().contains("server ping data: rdma-ping-9: "), s.out());
        Thread.sleep(700); // TIMEWAIT of both ids
        assertEquals(0, cm.idCount());
        assertEquals(List.of(), mine(dev0));
        assertEquals(List.of(), mine(dev1));
    }
}
