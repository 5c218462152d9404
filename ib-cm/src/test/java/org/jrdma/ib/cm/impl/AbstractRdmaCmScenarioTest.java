package org.jrdma.ib.cm.impl;

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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
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
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM scenarios every fabric must pass, written once: listen, resolve, connect, accept, data over
 * the connected RC QPs, disconnect; SIDR and UD datagrams; rejects, unreachable peers, bad calls and device
 * removal. A subclass provides the fabric (two devices in one {@link IbCore}, a client and a server, their
 * addresses and what the fabric needs besides the MAD layer) and may add scenarios only its fabric has.
 * A missing event fails with the CM, MAD and fabric counters and the stacks of the threads involved.
 */
abstract class AbstractRdmaCmScenarioTest {
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
    MadLayer mad;
    RdmaCmService cm;
    final BlockingQueue<RdmaCmEvent> serverEvents = new LinkedBlockingQueue<>();
    final BlockingQueue<RdmaCmEvent> clientEvents = new LinkedBlockingQueue<>();

    // ------------------------------------------------------------------------------------ the fabric

    /** Opens and registers the two devices with {@link #core} (made already). */
    abstract void openDevices() throws Exception;

    /** The CM on {@link #mad} (made already), with whatever else the fabric needs for routes. */
    RdmaCmService openCm() throws Exception {
        return new RdmaCmService(core, mad);
    }

    /** Closes what {@link #openCm} opened besides the CM; called after the CM is closed, before the MAD layer. */
    void closeServices() {
    }

    /** Closes the devices; called last. */
    abstract void closeDevices();

    /** The device the active side resolves to. */
    abstract IbDevice clientDevice();

    /** The device the listeners are bound on. */
    abstract IbDevice serverDevice();

    /** The active side's address, as the passive side sees it. */
    abstract InetAddress clientAddr();

    /** The passive side's address. */
    abstract InetAddress serverAddr();

    /** The source address given to {@code resolveAddr}, or null to let the CM choose it. */
    abstract InetAddress resolveSource();

    /** Whether {@code resolveRoute} asks the SA for a path record (InfiniBand) or finds the route locally (RoCE). */
    abstract boolean routesFromSa();

    /** Takes the server device away (hot unplug) during a test. */
    abstract void removeServerDevice();

    /** After {@link #removeServerDevice} and the ids are closed: what the fabric does to be whole again. */
    void afterServerDeviceRemoval() {
    }

    /** The address vectors of two connected RC QPs, as this fabric routes them. */
    abstract void checkConnectedPaths(QpAttr client, QpAttr server);

    /** ESTABLISHED's {@code ud.ah_attr} for a UDP id, as this fabric routes it. */
    abstract void checkUdAhAttr(AhAttr av);

    /** The fabric's own counters, appended to the diagnostics of a missing event. */
    abstract void fabricDiagnostics(StringBuilder b);

    /** The name prefixes of the fabric's threads, whose stacks go into the diagnostics of a missing event. */
    abstract List<String> fabricThreads();

    @BeforeEach
    void up() throws Exception {
        core = IbCore.newInstance();
        openDevices();
        mad = new MadLayer(core);
        cm = openCm();
    }

    @AfterEach
    void down() {
        cm.close();
        closeServices();
        mad.close();
        closeDevices();
    }

    // ------------------------------------------------------------------------------------ helpers

    /** What a missing event leaves to go on: CM, MAD and fabric counters and the stacks of the threads involved. */
    String diagnostics() {
        StringBuilder b = new StringBuilder("\ncm ").append(cm.counters());
        for (IbDevice d : List.of(clientDevice(), serverDevice())) {
            try {
                b.append("\n").append(d.name()).append(" mad ").append(mad.counters(d, 1));
            } catch (RuntimeException e) {
                b.append("\n").append(d.name()).append(" mad: ").append(e);
            }
        }
        fabricDiagnostics(b);
        List<String> prefixes = new java.util.ArrayList<>(List.of("ib-mad", "rdma-cm"));
        prefixes.addAll(fabricThreads());
        Thread.getAllStackTraces().forEach((t, st) -> {
            String n = t.getName();
            if (prefixes.stream().anyMatch(n::startsWith)) {
                b.append("\n\"").append(n).append("\" ").append(t.getState());
                for (int i = 0; i < Math.min(st.length, 12); i++) {
                    b.append("\n    at ").append(st[i]);
                }
            }
        });
        return b.toString();
    }

    /** The next event of {@code q}, which must be {@code want}; 15 s at most, then fails with {@link #diagnostics}. */
    RdmaCmEvent next(BlockingQueue<RdmaCmEvent> q, RdmaCmEventType want) throws InterruptedException {
        RdmaCmEvent e = q.poll(15, TimeUnit.SECONDS);
        assertNotNull(e, () -> "no event, expected " + want + diagnostics());
        assertEquals(want, e.type(), "event " + e);
        return e;
    }

    /** One side's verbs: PD, CQ, a QP through the id (for a UDP id: UD, in RTS), one registered buffer. */
    static final class Side {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        final MemoryRegion mr;

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
            return awaitCompletion(cq);
        }
    }

    /** The next completion of {@code cq}, polled for up to 10 s. */
    static WorkCompletion awaitCompletion(CompletionQueue cq) throws InterruptedException {
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

    /** A listener on the server address and {@code port}; CONNECT_REQUEST is answered by {@code onRequest}. */
    RdmaCmId listen(RdmaPortSpace ps, int port, Function<RdmaCmEvent, Integer> onRequest) throws Exception {
        RdmaCmId l = cm.createId((id, ev) -> {
            serverEvents.add(ev);
            return ev.type() == RdmaCmEventType.CONNECT_REQUEST ? onRequest.apply(ev) : 0;
        }, ps);
        l.bindAddr(new InetSocketAddress(serverAddr(), port));
        assertEquals(serverDevice(), l.device());
        l.listen(8);
        return l;
    }

    /** An id with address and route to {@code dst}, on the client device. */
    RdmaCmId resolve(RdmaPortSpace ps, InetAddress dst, int port) throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            clientEvents.add(ev);
            return 0;
        }, ps);
        InetAddress src = resolveSource();
        c.resolveAddr(src == null ? null : new InetSocketAddress(src, 0), new InetSocketAddress(dst, port), 2000);
        next(clientEvents, RdmaCmEventType.ADDR_RESOLVED);
        assertEquals(clientDevice(), c.device());
        assertEquals(1, c.portNum());
        assertEquals(clientAddr(), c.localAddr().getAddress());
        c.resolveRoute(2000);
        next(clientEvents, RdmaCmEventType.ROUTE_RESOLVED);
        return c;
    }

    RdmaCmId resolve(RdmaPortSpace ps, int port) throws Exception {
        return resolve(ps, serverAddr(), port);
    }

    // ------------------------------------------------------------------------------------ scenarios

    @Test
    void connectSendDisconnect() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7174, ev -> {
            server[0] = new Side(ev.id());
            server[0].qp.postRecv(new RecvWr().wrId(7).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
            assertEquals("hello from the client", new String(ev.param().privateData(), 0, 21, StandardCharsets.US_ASCII));
            ev.id().accept(new RdmaConnParam().privateData("welcome".getBytes(StandardCharsets.US_ASCII)));
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.TCP, 7174);
        Side client = new Side(c);
        c.connect(new RdmaConnParam().privateData("hello from the client".getBytes(StandardCharsets.US_ASCII)));

        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(new InetSocketAddress(clientAddr(), c.localAddr().getPort()), req.id().remoteAddr());
        assertEquals(new InetSocketAddress(serverAddr(), 7174), req.id().localAddr());
        assertEquals(serverDevice(), req.id().device());
        assertEquals(l, req.listenId());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals("welcome", new String(est.param().privateData(), 0, 7, StandardCharsets.US_ASCII));
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(QpState.RTS, client.qp.state());
        assertEquals(QpState.RTS, server[0].qp.state());
        checkConnectedPaths(client.qp.query(), server[0].qp.query());

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
        next(serverEvents, RdmaCmEventType.TIMEWAIT_EXIT);
        client.release(c);
        c.close();
        server[0].release(req.id());
        req.id().close();
        l.close();
        assertEquals(1L, cm.counters().get(CmCounter.DREQ_SENT));
        assertEquals(1L, cm.counters().get(CmCounter.DREP_RCVD));
        assertEquals(1L, cm.counters().get(CmCounter.REP_RCVD), "the REP is counted as taken");
        // route_resolved counts path records from the SA: one where routes come from it, none where they are local
        assertEquals(routesFromSa() ? 1L : 0L, cm.counters().getOrDefault(CmCounter.ROUTE_RESOLVED, 0L));
        assertEquals(0, cm.idCount());
    }

    /** SIDR resolves the service of a UDP id; the QPs come from rdma_create_qp in RTS with RDMA_UDP_QKEY. */
    @Test
    void udpPortSpaceResolvesTheServiceWithSidrAndSendsDatagrams() throws Exception {
        Side[] server = new Side[1];
        RdmaCmId l = listen(RdmaPortSpace.UDP, 7180, ev -> {
            server[0] = new Side(ev.id(), QpType.UD);
            server[0].qp.postRecv(new RecvWr().wrId(9).sgList(new Sge(server[0].mr.iova(), 4096, server[0].mr.lkey())));
            assertEquals("who are you", new String(ev.param().privateData(), 0, 11, StandardCharsets.US_ASCII));
            ev.id().accept(new RdmaConnParam().privateData("the UD server".getBytes(StandardCharsets.US_ASCII)));
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.UDP, 7180);
        Side client = new Side(c, QpType.UD);
        assertEquals(QpState.RTS, client.qp.state());
        c.connect(new RdmaConnParam().privateData("who are you".getBytes(StandardCharsets.US_ASCII)));
        RdmaCmEvent req = next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(new InetSocketAddress(clientAddr(), c.localAddr().getPort()), req.id().remoteAddr());
        RdmaCmEvent est = next(clientEvents, RdmaCmEventType.ESTABLISHED);
        assertEquals(server[0].qp.qpNum(), est.param().qpNum());          // ud.qp_num
        assertEquals(RdmaCmService.RDMA_UDP_QKEY, est.param().qkey());     // ud.qkey
        AhAttr av = est.param().ahAttr();                                  // ud.ah_attr
        assertNotNull(av);
        checkUdAhAttr(av);
        assertEquals("the UD server", new String(est.param().privateData(), 0, 13, StandardCharsets.US_ASCII));
        assertEquals(1L, cm.counters().get(CmCounter.SIDR_REQ_SENT));
        assertEquals(1L, cm.counters().get(CmCounter.SIDR_REP_RCVD));

        org.jrdma.ib.core.AddressHandle ah = client.pd.createAh(av);
        byte[] msg = "a datagram after SIDR".getBytes(StandardCharsets.US_ASCII);
        client.buf.put(0, msg);
        client.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(client.mr.iova(), msg.length, client.mr.lkey()))
                .ud(ah, est.param().qpNum(), est.param().qkey()));
        assertEquals(WcStatus.SUCCESS, client.await().status());
        WorkCompletion rwc = server[0].await();
        assertEquals(WcStatus.SUCCESS, rwc.status());
        assertEquals(msg.length + 40, rwc.byteLen()); // 40 bytes for the GRH first, present or not
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
        RdmaCmId c = resolve(RdmaPortSpace.UDP, 7181);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> c.connect(new RdmaConnParam().privateData(new byte[181]))).errno());
        c.connect(new RdmaConnParam().privateData(new byte[180]));
        RdmaCmEvent e = next(clientEvents, RdmaCmEventType.UNREACHABLE);
        assertEquals(1, e.status()); // IB_SIDR_UNSUPPORTED
        c.close();
    }

    @Test
    void rejectCarriesReasonAndPrivateData() throws Exception {
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7175, ev -> {
            ev.id().reject("go away".getBytes(StandardCharsets.US_ASCII));
            return 0;
        });
        RdmaCmId c = resolve(RdmaPortSpace.TCP, 7175);
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
        RdmaCmId c = resolve(RdmaPortSpace.TCP, 7176);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        RdmaCmEvent rej = next(clientEvents, RdmaCmEventType.REJECTED);
        assertEquals(8, rej.status()); // IB_CM_REJ_INVALID_SERVICE_ID
        assertEquals(1L, cm.counters().get(CmCounter.REJ_NO_LISTENER));
        client.release(c);
        c.close();
    }

    /**
     * A REQ flood against a listener whose handler does not keep up: at most the backlog (here 8, rdma_listen's
     * argument) of requests wait for it, the rest are rejected at once and counted (ucma's max_backlog), so the
     * queue of the CM thread stays bounded; once the handler runs again the waiting ones get its answer.
     */
    @Test
    void aFullBacklogRejectsFurtherRequestsAndCountsThem() throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7178, ev -> {
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 1; // reject
        });
        List<RdmaCmId> ids = new java.util.ArrayList<>();
        List<Side> sides = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 12; i++) {
                RdmaCmId c = resolve(RdmaPortSpace.TCP, 7178);
                ids.add(c);
                sides.add(new Side(c));
            }
            for (RdmaCmId c : ids) {
                c.connect(new RdmaConnParam());
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (cm.counters().getOrDefault(CmCounter.REJ_BACKLOG, 0L) < 4 && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertEquals(4L, cm.counters().getOrDefault(CmCounter.REJ_BACKLOG, 0L), "12 requests, 8 waiting" + diagnostics());
        } finally {
            hold.countDown();
        }
        for (int i = 0; i < 12; i++) {
            next(clientEvents, RdmaCmEventType.REJECTED); // 4 by the backlog, 8 by the handler
        }
        assertEquals(4L, cm.counters().get(CmCounter.REJ_BACKLOG));
        for (int i = 0; i < ids.size(); i++) {
            sides.get(i).release(ids.get(i));
            ids.get(i).close();
        }
        l.close();
    }

    @Test
    void handlerReturningNonZeroRejectsAndDestroysTheNewId() throws Exception {
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7177, ev -> 1);
        RdmaCmId c = resolve(RdmaPortSpace.TCP, 7177);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        next(clientEvents, RdmaCmEventType.REJECTED);
        client.release(c);
        c.close();
        l.close();
    }

    @Test
    void wrongStateAndPortInUseAreErrors() throws Exception {
        RdmaCmId l = listen(RdmaPortSpace.TCP, 7178, ev -> 0);
        RdmaCmId other = cm.createId((id, ev) -> 0, RdmaPortSpace.TCP);
        VerbsException e = assertThrows(VerbsException.class,
                () -> other.bindAddr(new InetSocketAddress(serverAddr(), 7178)));
        assertEquals(Errno.EADDRINUSE, e.errno());
        RdmaCmId fresh = cm.createId((id, ev) -> 0, RdmaPortSpace.TCP);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> fresh.connect(new RdmaConnParam())).errno());
        // an address no device of this fabric has
        assertEquals(Errno.EADDRNOTAVAIL, assertThrows(VerbsException.class,
                () -> fresh.bindAddr(new InetSocketAddress(InetAddress.getByName("127.255.255.254"), 1))).errno());
        assertNull(fresh.device());
        other.close();
        fresh.close();
        l.close();
    }

    /** The connection's id gets DEVICE_REMOVAL; the wildcard listener, not bound to the device, gets none. */
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
        RdmaCmId c = resolve(RdmaPortSpace.TCP, 7179);
        Side client = new Side(c);
        c.connect(new RdmaConnParam());
        next(clientEvents, RdmaCmEventType.ESTABLISHED);
        next(serverEvents, RdmaCmEventType.CONNECT_REQUEST);
        next(serverEvents, RdmaCmEventType.ESTABLISHED);
        removeServerDevice();
        RdmaCmEvent rm = next(serverEvents, RdmaCmEventType.DEVICE_REMOVAL);
        assertEquals(conn[0], rm.id());
        assertTrue(serverEvents.isEmpty(), "the wildcard listener got no DEVICE_REMOVAL: " + serverEvents);
        conn[0].close();
        client.release(c);
        c.close();
        l.close();
        afterServerDeviceRemoval();
    }
}
