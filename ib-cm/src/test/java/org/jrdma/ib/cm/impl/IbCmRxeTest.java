package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmEventType;
import org.jrdma.ib.cm.ib.IbCmHandler;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.cm.ib.IbCmState;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
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
 * The IB CM API used directly, not through the RDMA CM, as IPoIB connected mode uses it (service ID
 * {@code 0x1000000000000000 | QPN}, private data = QPN + receive MTU): two hw-rxe devices on real UDP
 * (loopback addresses 127.X.Y.1 and .2), a listener by service ID (and by mask), REQ -> REP -> RTU with the
 * QPs moved by {@code initQpAttr}, data across, DREQ -> DREP -> TIMEWAIT_EXIT, and the REJs.
 */
class IbCmRxeTest {
    static final long IPOIB_CM_IETF_ID = 0x1000000000000000L;

    IbCore core;
    RxeNetDevice ra;
    RxeNetDevice rb;
    String net;
    MadLayer mad;
    IbCmService ib;
    final BlockingQueue<Got> client = new LinkedBlockingQueue<>();
    final BlockingQueue<Got> server = new LinkedBlockingQueue<>();

    record Got(IbCmId id, IbCmEvent ev) {
    }

    @BeforeEach
    void up() {
        core = IbCore.newInstance();
        net = "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
        ra = RxeNetDevice.open(core.registrar(), "ica%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "icb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        mad = new MadLayer(core);
        ib = new IbCmService(core, mad);
    }

    @AfterEach
    void down() {
        ib.close();
        mad.close();
        ra.close();
        rb.close();
    }

    static IbCmHandler into(BlockingQueue<Got> q, int rc) {
        return (id, ev) -> {
            q.add(new Got(id, ev));
            return ev.type() == IbCmEventType.REQ_RECEIVED ? rc : 0;
        };
    }

    static Got next(BlockingQueue<Got> q, IbCmEventType want) throws InterruptedException {
        Got g = q.poll(15, TimeUnit.SECONDS);
        assertNotNull(g, "no event, expected " + want);
        assertEquals(want, g.ev().type(), "event " + g.ev());
        return g;
    }

    /** The RoCE path from {@code from}'s address to {@code to}'s: GIDs, the port's MTU, rdma_cm's packet life. */
    IbCmPath path(RxeNetDevice from, String src, String dst) throws Exception {
        IbDevice d = from.ibDevice();
        Gid sgid = Gid.of(InetAddress.getByName(src));
        int index = 0;
        while (!sgid.equals(d.queryGid(1, index))) {
            index++;
        }
        return new IbCmPath(1, index, sgid, Gid.of(InetAddress.getByName(dst)), false, 0, 0, 0,
                d.queryPort(1).activeMtu().code(), 0, 18, 64, 0, 0);
    }

    /** IPoIB CM's REQ private data: the QPN and the receive MTU. */
    static byte[] ipoibData(int qpn, int mtu) {
        return ByteBuffer.allocate(8).putInt(qpn).putInt(mtu).array();
    }

    IbCmReqParam req(Verbs side, long serviceId, byte[] privateData) throws Exception {
        return new IbCmReqParam().primaryPath(path(ra, net + "1", net + "2")).serviceId(serviceId)
                .qpNum(side.qp.qpNum()).startingPsn(0x123456).privateData(privateData).responderResources(1)
                .initiatorDepth(1);
    }

    /** One side's verbs: PD, CQ, an RC QP in INIT, one registered buffer. */
    static final class Verbs {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        final MemoryRegion mr;

        Verbs(IbDevice dev) {
            pd = dev.allocPd(AbstractRdmaCmScenarioTest.OWNER);
            cq = dev.createCq(AbstractRdmaCmScenarioTest.OWNER, new CqInitAttr().cqe(16));
            qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
            mr = pd.regMr(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)
                    .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
        }

        WorkCompletion await() throws InterruptedException {
            return AbstractRdmaCmScenarioTest.awaitCompletion(cq);
        }

        void release() {
            qp.destroy();
            mr.dereg();
            cq.destroy();
            pd.dealloc();
        }
    }

    @Test
    void connectsTwoRcQpsThatMoveDataThenDisconnects() throws Exception {
        Verbs c = new Verbs(ra.ibDevice());
        Verbs s = new Verbs(rb.ibDevice());
        long sid = IPOIB_CM_IETF_ID | s.qp.qpNum();
        IbCmId listener = ib.createId(rb.ibDevice(), into(server, 0), "listener");
        listener.listen(sid, 0);
        assertEquals(IbCmState.LISTEN, listener.state());

        IbCmId cid = ib.createId(ra.ibDevice(), into(client, 0), "client");
        cid.sendReq(req(c, sid, ipoibData(c.qp.qpNum(), 2044)));
        assertEquals(IbCmState.REQ_SENT, cid.state());

        Got reqd = next(server, IbCmEventType.REQ_RECEIVED);
        IbCmId conn = reqd.id();
        IbCmEvent req = reqd.ev();
        assertNotSame(listener, conn); // a new id, as in Linux
        assertSame(listener, req.listenId());
        assertEquals("listener", conn.context()); // inherited from the listener
        assertEquals(IbCmState.REQ_RCVD, conn.state());
        assertEquals(sid, req.serviceId());
        assertEquals(c.qp.qpNum(), req.remoteQpn());
        assertEquals(0x123456, req.startingPsn());
        assertEquals(1, req.responderResources());
        assertEquals(1, req.initiatorDepth());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(ra.ibDevice().nodeGuid(), req.remoteCaGuid());
        assertArrayEquals(ipoibData(c.qp.qpNum(), 2044), Arrays.copyOf(req.privateData(), 8));
        assertEquals(Gid.of(InetAddress.getByName(net + "1")), req.path().dgid());
        assertEquals(Gid.of(InetAddress.getByName(net + "2")), req.path().sgid());

        // the passive side, as ipoib_cm_req_handler: RTR with its own rq_psn, RTS, then the REP
        s.qp.modify(conn.initQpAttr(QpState.RTR).rqPsn(0x654321));
        s.qp.modify(conn.initQpAttr(QpState.RTS));
        conn.sendRep(new IbCmRepParam().qpNum(s.qp.qpNum()).startingPsn(0x654321).responderResources(1)
                .initiatorDepth(1).privateData(ipoibData(s.qp.qpNum(), 2044)));
        assertEquals(IbCmState.REP_SENT, conn.state());

        IbCmEvent rep = next(client, IbCmEventType.REP_RECEIVED).ev();
        assertEquals(s.qp.qpNum(), rep.remoteQpn());
        assertEquals(0x654321, rep.startingPsn());
        assertArrayEquals(ipoibData(s.qp.qpNum(), 2044), Arrays.copyOf(rep.privateData(), 8));
        assertEquals(IbCmState.REP_RCVD, cid.state());
        QpAttr rtr = cid.initQpAttr(QpState.RTR);
        assertEquals(s.qp.qpNum(), rtr.destQpNum());
        assertEquals(0x123456, rtr.rqPsn());
        QpAttr rts = cid.initQpAttr(QpState.RTS);
        assertEquals(0x654321, rts.sqPsn());
        assertEquals(19, rts.timeout()); // cm_ack_timeout(15, 18), what Linux's REQ carries over rxe
        c.qp.modify(rtr);
        c.qp.modify(rts);
        cid.sendRtu(null);
        assertEquals(IbCmState.ESTABLISHED, cid.state());
        next(server, IbCmEventType.RTU_RECEIVED);
        assertEquals(IbCmState.ESTABLISHED, conn.state());

        byte[] msg = "the IB CM connected these two QPs".getBytes(StandardCharsets.US_ASCII);
        s.qp.postRecv(new RecvWr().wrId(7).sgList(new Sge(s.mr.iova(), 4096, s.mr.lkey())));
        c.buf.put(0, msg);
        c.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(c.mr.iova(), msg.length, c.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, c.await().status());
        WorkCompletion rwc = s.await();
        assertEquals(WcStatus.SUCCESS, rwc.status());
        assertEquals(msg.length, rwc.byteLen());
        byte[] got = new byte[msg.length];
        s.buf.get(0, got);
        assertArrayEquals(msg, got);

        cid.sendDreq(null);
        assertEquals(IbCmState.DREQ_SENT, cid.state());
        next(server, IbCmEventType.DREQ_RECEIVED);
        assertEquals(IbCmState.DREQ_RCVD, conn.state());
        conn.sendDrep(null);
        assertEquals(IbCmState.TIMEWAIT, conn.state());
        next(client, IbCmEventType.DREP_RECEIVED);
        assertEquals(IbCmState.TIMEWAIT, cid.state());
        next(client, IbCmEventType.TIMEWAIT_EXIT);
        next(server, IbCmEventType.TIMEWAIT_EXIT);
        assertEquals(IbCmState.IDLE, cid.state());
        assertEquals(IbCmState.IDLE, conn.state());
        assertEquals(0, ib.connTableSize());
        cid.close();
        conn.close();
        listener.close();
        c.release();
        s.release();
    }

    @Test
    void aRejCarriesItsReasonAriAndPrivateData() throws Exception {
        Verbs c = new Verbs(ra.ibDevice());
        IbCmId listener = ib.createId(rb.ibDevice(), into(server, 0), null);
        listener.listen(IPOIB_CM_IETF_ID | 0x42, 0);
        IbCmId cid = ib.createId(ra.ibDevice(), into(client, 0), null);
        cid.sendReq(req(c, IPOIB_CM_IETF_ID | 0x42, null));
        IbCmId conn = next(server, IbCmEventType.REQ_RECEIVED).id();
        conn.sendRej(IbCmRejReason.NO_RESOURCES, new byte[] {1, 2, 3}, "busy".getBytes(StandardCharsets.US_ASCII));
        assertEquals(IbCmState.IDLE, conn.state());
        IbCmEvent rej = next(client, IbCmEventType.REJ_RECEIVED).ev();
        assertEquals(IbCmRejReason.NO_RESOURCES.code(), rej.rejReason());
        assertArrayEquals(new byte[] {1, 2, 3}, rej.ari());
        assertEquals("busy", new String(rej.privateData(), 0, 4, StandardCharsets.US_ASCII));
        assertEquals(IbCmState.IDLE, cid.state());
        assertEquals(0, ib.connTableSize());
        cid.close();
        conn.close();
        listener.close();
        c.release();
    }

    /** A listener by mask takes every service ID under it; its handler's non-zero answer rejects the REQ. */
    @Test
    void aMaskedListenerTakesTheRangeAndANonZeroAnswerRejects() throws Exception {
        Verbs c = new Verbs(ra.ibDevice());
        IbCmId listener = ib.createId(rb.ibDevice(), into(server, -1), null);
        listener.listen(IPOIB_CM_IETF_ID, 0xff00000000000000L);
        IbCmId cid = ib.createId(ra.ibDevice(), into(client, 0), null);
        cid.sendReq(req(c, IPOIB_CM_IETF_ID | 0xabc, null));
        assertEquals(IPOIB_CM_IETF_ID | 0xabc, next(server, IbCmEventType.REQ_RECEIVED).ev().serviceId());
        IbCmEvent rej = next(client, IbCmEventType.REJ_RECEIVED).ev(); // cm_destroy_id in REQ_RCVD
        assertEquals(IbCmRejReason.CONSUMER_DEFINED.code(), rej.rejReason());
        VerbsException busy = assertThrows(VerbsException.class,
                () -> ib.createId(rb.ibDevice(), into(server, 0), null).listen(IPOIB_CM_IETF_ID, 0xff00000000000000L));
        assertEquals(Errno.EBUSY, busy.errno());
        cid.close();
        listener.close();
        c.release();
    }

    @Test
    void aReqToNoListenerIsRejectedAsInvalidServiceId() throws Exception {
        Verbs c = new Verbs(ra.ibDevice());
        IbCmId cid = ib.createId(ra.ibDevice(), into(client, 0), null);
        cid.sendReq(req(c, IPOIB_CM_IETF_ID | 0x77, null));
        IbCmEvent rej = next(client, IbCmEventType.REJ_RECEIVED).ev();
        assertEquals(IbCmRejReason.INVALID_SERVICE_ID.code(), rej.rejReason());
        assertEquals(1L, ib.counters().get(CmCounter.REJ_NO_LISTENER));
        cid.close();
        c.release();
    }
}
