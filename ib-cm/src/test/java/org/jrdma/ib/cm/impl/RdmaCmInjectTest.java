package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.wire.CmAttr;
import org.jrdma.ib.cm.wire.CmDrep;
import org.jrdma.ib.cm.wire.CmDreq;
import org.jrdma.ib.cm.wire.CmMra;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmRtu;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad and unexpected CM input, and MRA, against an {@link RdmaCmService} on two hw-rxe devices (.1, .2): a
 * {@link CmInjector} on .3 (its own ib-core and MAD layer) plays a raw CM peer. Each case checks the reply
 * (or silence) cm.c gives, the counter, and that no id or table entry is left behind.
 */
class RdmaCmInjectTest {
    static final IbClient OWNER = new IbClient() {
        @Override
        public String name() {
            return "cm-inject-test";
        }

        @Override
        public void add(IbDevice device) {
        }

        @Override
        public void remove(IbDevice device, Object clientData) {
        }
    };
    static final long GUID = 0x0002c9fffe123456L;

    IbCore core;
    RxeNetDevice ra;
    RxeNetDevice rb;
    MadLayer mad;
    RdmaCmService cm;
    CmInjector inj;
    String net;
    InetAddress server;
    final BlockingQueue<RdmaCmEvent> events = new LinkedBlockingQueue<>();

    @BeforeEach
    void up() throws Exception {
        core = IbCore.newInstance();
        net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
        ra = RxeNetDevice.open(core.registrar(), "cma%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "cmb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        cm = new RdmaCmService(core, mad);
        inj = new CmInjector(net + "3");
        server = InetAddress.getByName(net + "2");
    }

    @AfterEach
    void down() {
        cm.close();
        mad.close();
        ra.close();
        rb.close();
        inj.close();
    }

    long counter(CmCounter name) {
        return cm.counters().getOrDefault(name, 0L);
    }

    RdmaCmEvent next(RdmaCmEventType want) throws InterruptedException {
        RdmaCmEvent e = events.poll(15, TimeUnit.SECONDS);
        assertNotNull(e, "no event, expected " + want);
        assertEquals(want, e.type(), "event " + e);
        return e;
    }

    RdmaCmId listen(int port, Function<RdmaCmEvent, Integer> onRequest) throws Exception {
        RdmaCmId l = cm.createId((id, ev) -> {
            int rc = ev.type() == RdmaCmEventType.CONNECT_REQUEST ? onRequest.apply(ev) : 0;
            events.add(ev); // after the handler: a test that sees the event sees what the handler did
            return rc;
        }, RdmaPortSpace.TCP);
        l.bindAddr(new InetSocketAddress(server, port));
        l.listen(8);
        return l;
    }

    /** A QP for an id, with what it needs (released with the device's resources at teardown). */
    static QueuePair qp(RdmaCmId id) {
        ProtectionDomain pd = id.device().allocPd(OWNER);
        CompletionQueue cq = id.device().createCq(OWNER, new CqInitAttr().cqe(8));
        return id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
    }

    /** Waits until the service's counter {@code name} reaches {@code value}. */
    void awaitCounter(CmCounter name, long value) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (counter(name) < value) {
            assertTrue(System.nanoTime() < end, "counter " + name + " stays at " + counter(name) + ", want " + value
                    + ": " + cm.counters());
            Thread.sleep(5);
        }
    }

    void awaitNoConnections() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cm.connTableSize() != 0) {
            assertTrue(System.nanoTime() < end, "comm ID tables keep " + cm.connTableSize() + " entries");
            Thread.sleep(10);
        }
    }

    @Test
    void badClassVersionIsDroppedByTheMadLayer() throws Exception {
        long before = mad.counters(rb.ibDevice(), 1).getOrDefault("dropped_unclaimed", 0L);
        Mad m = inj.req(0x1111, 0x99, GUID, 5000, server, 7200, new byte[0]).encode(1L);
        m.classVersion(1);
        inj.send(m, server);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (mad.counters(rb.ibDevice(), 1).getOrDefault("dropped_unclaimed", 0L) == before) {
            assertTrue(System.nanoTime() < end, "the MAD layer did not drop it: " + mad.counters(rb.ibDevice(), 1));
            Thread.sleep(5);
        }
        assertEquals(0, counter(CmCounter.RCVD));
        assertNull(inj.next(200), "no answer to a class version 1 CM MAD");
    }

    @Test
    void unknownAndUnsupportedAttributesAreDroppedAndCounted() throws Exception {
        int ids = cm.idCount();
        Mad unknown = CmAttr.header(0x0030, 2L);
        inj.send(unknown, server);
        Mad lap = CmAttr.header(CmAttr.LAP, 3L);
        inj.send(lap, server);
        awaitCounter(CmCounter.DROPPED_UNKNOWN_ATTR, 1);
        awaitCounter(CmCounter.DROPPED_UNSUPPORTED_ATTR, 1);
        assertNull(inj.next(200));
        assertEquals(ids, cm.idCount());
    }

    /** A resolved TCP id on .1 with an RC QP, to connect to the injector's {@code port}. */
    RdmaCmId clientToInjector(int port) throws Exception {
        RdmaCmId c = cm.createId((id, ev) -> {
            events.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(net + "1"), 0), new InetSocketAddress(inj.addr, port),
                2000);
        next(RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(2000);
        next(RdmaCmEventType.ROUTE_RESOLVED);
        qp(c);
        return c;
    }

    @Test
    void outOfRangeFieldsAreTakenAsReceived() throws Exception {
        // a REJ whose rejected-info length (7 bits) says 100, more than the 72 bytes of ARI, and a reason no
        // spec defines: cm.c hands both to the consumer as they are, and so does jrdma (no exception)
        RdmaCmId c = clientToInjector(7209);
        c.connect(new RdmaConnParam());
        Mad m = inj.expect(CmAttr.REQ);
        Mad rej = new CmRej().localCommId(0x9999).remoteCommId(CmReq.decode(m).localCommId()).reason(0xfff0)
                .privateData("no".getBytes()).encode(m.tid());
        rej.u8(Mad.HDR_SIZE + 9, 100 << 1);
        inj.send(rej, InetAddress.getByName(net + "1"));
        RdmaCmEvent e = next(RdmaCmEventType.REJECTED);
        assertEquals(0xfff0, e.status());
        assertEquals('n', e.param().privateData()[0]);
        assertEquals(0, counter(CmCounter.DROPPED_ERROR));
        assertEquals(0, counter(CmCounter.DROPPED_MALFORMED));
        c.destroyQp();
        c.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
    }

    @Test
    void messagesForUnknownConnectionsAreDroppedButADreqGetsADrep() throws Exception {
        InetAddress s = server;
        inj.send(new CmRep().localCommId(0x10).remoteCommId(0x7777).localQpn(0x55).localCaGuid(GUID).encode(5L), s);
        inj.send(new CmRtu().localCommId(0x10).remoteCommId(0x7777).encode(6L), s);
        inj.send(new CmRej().localCommId(0x10).remoteCommId(0x7777).reason(28).encode(7L), s);
        inj.send(new CmDrep().localCommId(0x10).remoteCommId(0x7777).encode(8L), s);
        inj.send(new CmMra().localCommId(0x10).remoteCommId(0x7777).messageMraed(CmMra.MSG_REP).serviceTimeout(20)
                .encode(9L), s);
        awaitCounter(CmCounter.DROPPED_UNKNOWN_CONN, 5);
        assertNull(inj.next(200), "REP, RTU, REJ, DREP, MRA for unknown connections get no answer");
        // cm_dreq_handler -> cm_issue_drep
        inj.send(new CmDreq().localCommId(0x10).remoteCommId(0x7777).remoteQpn(0x42).encode(0xabcdL), s);
        Mad m = inj.expect(CmAttr.DREP);
        CmDrep drep = CmDrep.decode(m);
        assertEquals(0xabcdL, m.tid());
        assertEquals(0x7777, drep.localCommId());
        assertEquals(0x10, drep.remoteCommId());
        assertEquals(1, counter(CmCounter.DREQ_UNKNOWN_CONN));
        assertEquals(0, cm.idCount());
        assertEquals(0, cm.connTableSize());
    }

    @Test
    void duplicateReqGetsNoSecondConnectRequestButAnMraOncePending() throws Exception {
        RdmaCmId[] conn = new RdmaCmId[1];
        RdmaCmId l = listen(7201, ev -> {
            conn[0] = ev.id();
            return 0; // neither accept nor reject yet
        });
        int ids = cm.idCount();
        CmReq req = inj.req(0x2222, 0x99, GUID, 5001, server, 7201, "hi".getBytes());
        inj.send(req.encode(0x77L), server);
        next(RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(ids + 1, cm.idCount());
        inj.send(req.encode(0x77L), server); // the REQ again (our REP... nothing yet)
        Mad m = inj.expect(CmAttr.MRA);
        CmMra mra = CmMra.decode(m);
        assertEquals(CmMra.MSG_REQ, mra.messageMraed());
        assertEquals(RdmaCmService.MRA_SERVICE_TIMEOUT, mra.serviceTimeout());
        assertEquals(0x2222, mra.remoteCommId());
        assertEquals(0x77L, m.tid());
        assertEquals(1, counter(CmCounter.DUP_REQ));
        awaitCounter(CmCounter.MRA_SENT, 1); // counted once the send returned, which can be after the MRA arrived
        assertEquals(1, counter(CmCounter.MRA_SENT));
        assertNull(events.poll(300, TimeUnit.MILLISECONDS), "no second CONNECT_REQUEST");
        // the consumer says no at last
        conn[0].reject(new byte[0]);
        CmRej rej = CmRej.decode(inj.expect(CmAttr.REJ));
        assertEquals(IbCmRejReason.CONSUMER_DEFINED.code(), rej.reason());
        assertEquals(mra.localCommId(), rej.localCommId());
        conn[0].close();
        l.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
    }

    /** Connects the injector (as the active side, QPN {@code qpn}) to a listener that accepts; returns the REP. */
    CmRep establish(int commId, int qpn, RdmaCmId[] conn, int port) throws Exception {
        inj.send(inj.req(commId, qpn, GUID, 5002, server, port, new byte[0]).encode(0x100L + commId), server);
        RdmaCmEvent req = next(RdmaCmEventType.CONNECT_REQUEST);
        conn[0] = req.id();
        CmRep rep = CmRep.decode(inj.expect(CmAttr.REP));
        assertEquals(commId, rep.remoteCommId());
        inj.send(new CmRtu().localCommId(commId).remoteCommId(rep.localCommId()).encode(0x100L + commId), server);
        next(RdmaCmEventType.ESTABLISHED);
        return rep;
    }

    RdmaCmId acceptingListener(int port) throws Exception {
        return listen(port, ev -> {
            qp(ev.id());
            ev.id().accept(new RdmaConnParam());
            return 0;
        });
    }

    @Test
    void duplicateReqInTimewaitIsRejectedAsStale() throws Exception {
        RdmaCmId l = acceptingListener(7202);
        RdmaCmId[] conn = new RdmaCmId[1];
        CmRep rep = establish(0x3333, 0x98, conn, 7202);
        // the injector disconnects; the server answers with DREP and time-waits
        inj.send(new CmDreq().localCommId(0x3333).remoteCommId(rep.localCommId()).remoteQpn(rep.localQpn()).encode(0x5L),
                server);
        next(RdmaCmEventType.DISCONNECTED);
        conn[0].disconnect();
        assertEquals(0x3333, CmDrep.decode(inj.expect(CmAttr.DREP)).remoteCommId());
        // the old REQ arrives late
        inj.send(inj.req(0x3333, 0x98, GUID, 5002, server, 7202, new byte[0]).encode(0x77L), server);
        CmRej rej = CmRej.decode(inj.expect(CmAttr.REJ));
        assertEquals(IbCmRejReason.STALE_CONN.code(), rej.reason());
        assertEquals(0x3333, rej.remoteCommId());
        assertEquals(1, counter(CmCounter.DUP_REQ));
        next(RdmaCmEventType.TIMEWAIT_EXIT);
        conn[0].destroyQp();
        conn[0].close();
        l.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
    }

    @Test
    void reqFromTheQpOfALiveConnectionIsStale() throws Exception {
        RdmaCmId l = acceptingListener(7203);
        RdmaCmId[] conn = new RdmaCmId[1];
        CmRep rep = establish(0x4444, 0x97, conn, 7203);
        int ids = cm.idCount();
        // a new REQ (new comm ID) from the same QP of the same CA: the peer lost the connection
        inj.send(inj.req(0x4445, 0x97, GUID, 5003, server, 7203, new byte[0]).encode(0x78L), server);
        CmRej rej = CmRej.decode(inj.expect(CmAttr.REJ));
        assertEquals(IbCmRejReason.STALE_CONN.code(), rej.reason());
        assertEquals(0x4445, rej.remoteCommId());
        assertEquals(0, rej.localCommId());
        // and the live connection is torn down (cm_match_req sends it a DREQ)
        CmDreq dreq = CmDreq.decode(inj.expect(CmAttr.DREQ));
        assertEquals(rep.localCommId(), dreq.localCommId());
        assertEquals(0x4444, dreq.remoteCommId());
        assertEquals(1, counter(CmCounter.REJ_STALE_CONN));
        assertEquals(ids, cm.idCount(), "no id for the stale REQ");
        inj.send(new CmDrep().localCommId(0x4444).remoteCommId(rep.localCommId()).encode(0x6L), server);
        next(RdmaCmEventType.DISCONNECTED);
        conn[0].destroyQp();
        conn[0].close();
        l.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
    }

    @Test
    void reqWithABadCmaHeaderIsRejected() throws Exception {
        RdmaCmId l = listen(7204, ev -> 0);
        Mad m = inj.req(0x5555, 0x96, GUID, 5004, server, 7204, new byte[0]).encode(0x79L);
        m.u8(CmReqOffsets.PRIVATE_DATA, 1); // cma_version 1
        inj.send(m, server);
        CmRej rej = CmRej.decode(inj.expect(CmAttr.REJ));
        assertEquals(IbCmRejReason.CONSUMER_DEFINED.code(), rej.reason());
        assertEquals(0x5555, rej.remoteCommId());
        Mad v5 = inj.req(0x5556, 0x95, GUID, 5004, server, 7204, new byte[0]).encode(0x7aL);
        v5.u8(CmReqOffsets.PRIVATE_DATA + 1, 5 << 4); // IP version 5
        inj.send(v5, server);
        assertEquals(IbCmRejReason.CONSUMER_DEFINED.code(), CmRej.decode(inj.expect(CmAttr.REJ)).reason());
        assertEquals(2, counter(CmCounter.REJ_BAD_CMA_HEADER));
        assertNull(events.poll(200, TimeUnit.MILLISECONDS), "no CONNECT_REQUEST");
        assertEquals(1, cm.idCount()); // the listener
        assertEquals(0, cm.connTableSize());
        l.close();
    }

    @Test
    void privateDataPastItsLimitIsEinvalAndSendsNothing() throws Exception {
        RdmaCmId[] conn = new RdmaCmId[1];
        RdmaCmId l = listen(7205, ev -> {
            conn[0] = ev.id();
            qp(ev.id());
            return 0;
        });
        // connect: 56 bytes after the CMA header at most
        RdmaCmId c = cm.createId((id, ev) -> {
            events.add(ev);
            return 0;
        }, RdmaPortSpace.TCP);
        c.resolveAddr(new InetSocketAddress(InetAddress.getByName(net + "1"), 0), new InetSocketAddress(server, 7205), 2000);
        next(RdmaCmEventType.ADDR_RESOLVED);
        c.resolveRoute(2000);
        next(RdmaCmEventType.ROUTE_RESOLVED);
        qp(c);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> c.connect(new RdmaConnParam().privateData(new byte[57]))).errno());
        assertEquals(0, counter(CmCounter.REQ_SENT));
        // accept: 196 at most; reject: 148 at most
        inj.send(inj.req(0x6666, 0x94, GUID, 5005, server, 7205, new byte[0]).encode(0x7bL), server);
        next(RdmaCmEventType.CONNECT_REQUEST);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> conn[0].accept(new RdmaConnParam().privateData(new byte[197]))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> conn[0].reject(new byte[149])).errno());
        assertEquals(0, counter(CmCounter.REP_SENT));
        assertEquals(0, counter(CmCounter.REJ_SENT));
        assertNull(inj.next(200), "nothing sent");
        // the id is still waiting for an answer: the limits themselves work
        conn[0].reject(new byte[148]);
        assertEquals(IbCmRejReason.CONSUMER_DEFINED.code(), CmRej.decode(inj.expect(CmAttr.REJ)).reason());
        conn[0].destroyQp();
        conn[0].close();
        c.connect(new RdmaConnParam().privateData(new byte[56]));
        next(RdmaCmEventType.CONNECT_REQUEST);
        conn[0].destroyQp();
        conn[0].close();
        c.destroyQp();
        c.close();
        l.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
        Map<CmCounter, Long> k = cm.counters();
        assertEquals(0, k.getOrDefault(CmCounter.DROPPED_ERROR, 0L), k.toString());
    }

    @Test
    void mraForOurReqExtendsItsTimer() throws Exception {
        cm.ownIbCm().madTimeoutMs = 300;
        cm.ownIbCm().madRetries = 1; // unanswered, the REQ times out after about 600 ms
        RdmaCmId c = clientToInjector(7206);
        c.connect(new RdmaConnParam());
        Mad m = inj.expect(CmAttr.REQ);
        CmReq req = CmReq.decode(m);
        InetAddress client = InetAddress.getByName(net + "1");
        // service timeout 14: 64 ms + the packet life time (2^19 * 4.096 us, 2 s) before the next resend
        inj.send(new CmMra().localCommId(0x7777).remoteCommId(req.localCommId()).messageMraed(CmMra.MSG_REQ)
                .serviceTimeout(14).encode(m.tid()), client);
        awaitCounter(CmCounter.MRA_RCVD, 1);
        inj.send(new CmMra().localCommId(0x7777).remoteCommId(req.localCommId()).messageMraed(CmMra.MSG_REQ)
                .serviceTimeout(14).encode(m.tid()), client);
        awaitCounter(CmCounter.DUP_MRA, 1);
        assertNull(events.poll(1200, TimeUnit.MILLISECONDS), "still waiting for the REP after twice the MAD timeout");
        inj.send(new CmRep().localCommId(0x7777).remoteCommId(req.localCommId()).localQpn(0x93).startingPsn(1)
                .responderResources(1).initiatorDepth(1).rnrRetryCount(7).localCaGuid(GUID).encode(m.tid()), client);
        next(RdmaCmEventType.ESTABLISHED);
        assertEquals(0x7777, CmRtu.decode(inj.expect(CmAttr.RTU)).remoteCommId());
        c.disconnect();
        inj.expect(CmAttr.DREQ);
        c.destroyQp();
        c.close();
        assertEquals(0, cm.idCount());
    }

    @Test
    void withoutMraTheReqTimesOut() throws Exception {
        cm.ownIbCm().madTimeoutMs = 200;
        cm.ownIbCm().madRetries = 1;
        RdmaCmId c = clientToInjector(7207);
        c.connect(new RdmaConnParam());
        RdmaCmEvent e = next(RdmaCmEventType.UNREACHABLE);
        assertEquals(-Errno.ETIMEDOUT.value(), e.status());
        assertEquals(IbCmRejReason.TIMEOUT.code(), CmRej.decode(inj.expect(CmAttr.REJ)).reason());
        c.destroyQp();
        c.close();
        assertEquals(0, cm.idCount());
        awaitNoConnections();
    }

    @Test
    void mraForOurRepExtendsItsTimer() throws Exception {
        cm.ownIbCm().madTimeoutMs = 300;
        cm.ownIbCm().madRetries = 1;
        RdmaCmId l = acceptingListener(7208);
        inj.send(inj.req(0x8888, 0x92, GUID, 5008, server, 7208, new byte[0]).encode(0x7cL), server);
        RdmaCmEvent req = next(RdmaCmEventType.CONNECT_REQUEST);
        CmRep rep = CmRep.decode(inj.expect(CmAttr.REP));
        inj.send(new CmMra().localCommId(0x8888).remoteCommId(rep.localCommId()).messageMraed(CmMra.MSG_REP)
                .serviceTimeout(14).encode(0x7cL), server);
        awaitCounter(CmCounter.MRA_RCVD, 1);
        assertNull(events.poll(1200, TimeUnit.MILLISECONDS), "still waiting for the RTU");
        inj.send(new CmRtu().localCommId(0x8888).remoteCommId(rep.localCommId()).encode(0x7cL), server);
        next(RdmaCmEventType.ESTABLISHED);
        req.id().destroyQp();
        req.id().close();
        l.close();
    }

    /** Where the REQ's private data (the CMA header) starts in the MAD. */
    static final class CmReqOffsets {
        static final int PRIVATE_DATA = Mad.HDR_SIZE + 140;
    }
}
