package org.jrdma.ib.mad.impl;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadService;

/**
 * {@code struct ib_mad_port_private}: the special QPs of one port (SMI QP0 on InfiniBand ports, GSI
 * QP1 always) with their PD, their shared CQ, a ring of receive buffers and a pool of send buffers, and
 * the agents registered on them.
 *
 * <p>Here: open and close, agent registration, the CQ, and the receive path ({@code ib_mad_recv_done},
 * {@code find_mad_agent}). The send side of {@code mad.c} is {@link MadSendQueue}, {@code mad_rmpp.c} is
 * {@link MadRmpp}; where a received MAD came from is a {@link MadSource}.
 *
 * <p>Threads: the CQ handler only schedules {@link #poll} on the MAD thread, where receives are
 * dispatched, send completions processed and response timers fire. Callers' threads come in through
 * {@link MadSendQueue#send}, {@link MadSendQueue#modify}, agent registration and close. All of it is
 * serialized by this object's monitor; agents' handlers are never called with it held (they are queued on
 * the MAD thread).
 */
final class MadPort {
    /** Receive buffers per QP ({@code mad_recvq_size} is 512 in Linux). */
    static final int RECV_DEPTH = 256;
    /** Send buffers (and send queue depth) per QP ({@code mad_sendq_size} is 128 in Linux). */
    static final int SEND_DEPTH = 64;
    /** One receive buffer: the 40-byte GRH room, then the MAD. */
    static final int RECV_SLOT = WcFlags.GRH_BYTES + Mad.SIZE;
    /** {@code IB_SMP_DIRECTION}: the D bit in the status of a directed-route SMP. */
    static final int SMP_DIRECTION = 0x8000;
    private static final byte[] NO_GRH = new byte[WcFlags.GRH_BYTES];
    private static final long SEND_BIT = 1L << 32;

    final MadLayer layer;
    final IbDevice device;
    final int port;
    final LinkLayer linkLayer;
    final MadCounters counters = new MadCounters();
    /** Index 0: SMI (null on non-IB ports), 1: GSI. */
    final QpInfo[] qps = new QpInfo[2];
    private ProtectionDomain pd;
    private CompletionQueue cq;
    final MadSendQueue sends = new MadSendQueue(this);
    final MadRmpp rmpp = new MadRmpp(this, sends);
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private volatile boolean dead;
    /** The SMA of an InfiniBand port (null on RoCE). */
    Sma sma;

    MadPort(MadLayer layer, IbDevice device, int port) {
        this.layer = layer;
        this.device = device;
        this.port = port;
        this.linkLayer = device.linkLayer(port);
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** {@code ib_mad_qp_info}: one special QP with its buffers, agents and claims. */
    final class QpInfo {
        final QpType type;
        final int index;
        QueuePair qp;
        ByteBuffer recvBuf;
        MemoryRegion recvMr;
        ByteBuffer sendBuf;
        MemoryRegion sendMr;
        final MadSendWr[] sendSlots = new MadSendWr[SEND_DEPTH];
        final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
        /** Sends waiting for a free send buffer ({@code mad_queue} overflow). */
        final ArrayDeque<MadSendWr> overflow = new ArrayDeque<>();
        /** (class, version, method) to the agent that claims it. */
        final Map<Integer, MadAgentImpl> claims = new HashMap<>();
        final Map<Integer, MadAgentImpl> byHiTid = new HashMap<>();
        final List<MadAgentImpl> agents = new ArrayList<>();

        QpInfo(QpType type) {
            this.type = type;
            this.index = type == QpType.SMI ? 0 : 1;
        }

        void open() {
            qp = pd.createQp(new QpInitAttr().qpType(type).cq(cq).portNum(port)
                    .cap(new QpCap().maxSendWr(SEND_DEPTH).maxRecvWr(RECV_DEPTH).maxSendSge(1).maxRecvSge(1)));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).qkey(qkey()));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            recvBuf = ByteBuffer.allocateDirect(RECV_DEPTH * RECV_SLOT);
            recvMr = pd.regMr(recvBuf, Access.LOCAL_WRITE);
            sendBuf = ByteBuffer.allocateDirect(SEND_DEPTH * Mad.SIZE);
            sendMr = pd.regMr(sendBuf, Access.LOCAL_WRITE);
            for (int i = 0; i < SEND_DEPTH; i++) {
                freeSlots.add(i);
            }
            for (int i = 0; i < RECV_DEPTH; i++) {
                postRecv(i);
            }
        }

        int qkey() {
            return type == QpType.GSI ? MadService.QP1_QKEY : 0;
        }

        long wrId(boolean send, int slot) {
            return (long) index << 40 | (send ? SEND_BIT : 0) | slot;
        }

        void postRecv(int slot) {
            qp.postRecv(new RecvWr().wrId(wrId(false, slot))
                    .sgList(new Sge(recvMr.iova() + (long) slot * RECV_SLOT, RECV_SLOT, recvMr.lkey())));
        }

        void destroy() {
            if (qp != null) {
                quietly("move " + type + " QP to ERR", () -> qp.modify(new QpAttr().state(QpState.ERR)));
                quietly("destroy " + type + " QP", qp::destroy);
            }
            if (recvMr != null) {
                quietly("deregister receive MR", recvMr::dereg);
            }
            if (sendMr != null) {
                quietly("deregister send MR", sendMr::dereg);
            }
        }

        @Override
        public String toString() {
            return device.name() + "/" + port + " " + type;
        }
    }

    // ------------------------------------------------------------------ open / close

    /** Creates the PD, the CQ and the special QPs, all receive buffers posted. */
    void open() {
        try {
            pd = device.allocPd(layer);
            cq = device.createCq(layer, new CqInitAttr().cqe(4 * (RECV_DEPTH + SEND_DEPTH))
                    .compHandler(c -> layer.execute(this::poll)));
            cq.reqNotify(CqNotify.NEXT_COMP, false);
            if (linkLayer == LinkLayer.INFINIBAND) {
                qps[0] = new QpInfo(QpType.SMI);
            }
            qps[1] = new QpInfo(QpType.GSI);
            synchronized (this) {
                for (QpInfo q : qps) {
                    if (q != null) {
                        q.open();
                    }
                }
            }
        } catch (RuntimeException e) {
            synchronized (this) {
                dead = true;
                destroy();
            }
            throw e;
        }
    }

    /**
     * {@code ib_mad_port_close}: every agent is closed, its outstanding sends complete with WR_FLUSH_ERR,
     * and the QPs, MRs, AHs, CQ and PD are destroyed.
     */
    void close() {
        List<Object[]> flushes = new ArrayList<>();
        synchronized (this) {
            if (dead) {
                return;
            }
            dead = true;
            for (QpInfo q : qps) {
                if (q != null) {
                    for (MadAgentImpl a : new ArrayList<>(q.agents)) {
                        flushes.add(new Object[] {a, unregisterLocked(a)});
                    }
                }
            }
            destroy();
        }
        for (Object[] f : flushes) {
            @SuppressWarnings("unchecked")
            List<MadSendWr> sends = (List<MadSendWr>) f[1];
            layer.flushCallbacks((MadAgentImpl) f[0], sends, true);
        }
    }

    boolean isDead() {
        return dead;
    }

    ProtectionDomain pd() {
        return pd;
    }

    private void destroy() {
        for (QpInfo q : qps) {
            if (q != null) {
                q.destroy();
            }
        }
        sends.destroyAhs();
        if (cq != null) {
            quietly("destroy CQ", cq::destroy);
        }
        if (pd != null) {
            quietly("deallocate PD", pd::dealloc);
        }
    }

    void quietly(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, device.name() + "/" + port + ": failed to " + what, e);
        }
    }

    // ------------------------------------------------------------------ agents

    static boolean isSmpClass(int mgmtClass) {
        return mgmtClass == Mad.CLASS_SUBN_LID_ROUTED || mgmtClass == Mad.CLASS_SUBN_DIRECTED_ROUTE;
    }

    static int claimKey(int mgmtClass, int classVersion, int method) {
        return mgmtClass << 16 | classVersion << 8 | method;
    }

    /** {@code ib_register_mad_agent} on this port. */
    MadAgentImpl registerAgent(QpType qpType, MadRegistration reg, MadHandler handler) {
        QpInfo q = qps[qpType == QpType.SMI ? 0 : 1];
        if (q == null) {
            throw new VerbsException(Errno.ENODEV, "registerAgent: port " + port + " of " + device.name() + " is "
                    + linkLayer.label() + " and has no SMI QP0");
        }
        if (reg != null && isSmpClass(reg.mgmtClass()) != (qpType == QpType.SMI)) {
            throw new VerbsException(Errno.EINVAL, "registerAgent: class 0x" + Integer.toHexString(reg.mgmtClass())
                    + (qpType == QpType.SMI ? " is not an SMP class (QP0 carries only classes 0x01 and 0x81)"
                            : " is an SMP class: register it on the SMI QP0"));
        }
        synchronized (this) {
            if (dead) {
                throw new VerbsException(Errno.ENODEV, "registerAgent: " + device.name() + " is gone");
            }
            if (reg != null) {
                for (int m : reg.methods()) {
                    MadAgentImpl other = q.claims.get(claimKey(reg.mgmtClass(), reg.classVersion(), m));
                    if (other != null) {
                        throw new VerbsException(Errno.EBUSY, String.format(
                                "registerAgent: class 0x%02x version %d method 0x%02x on %s is claimed by %s",
                                reg.mgmtClass(), reg.classVersion(), m, q, other));
                    }
                }
            }
            MadAgentImpl a = new MadAgentImpl(this, q, reg, handler, layer.nextHiTid());
            if (reg != null) {
                for (int m : reg.methods()) {
                    q.claims.put(claimKey(reg.mgmtClass(), reg.classVersion(), m), a);
                }
            }
            q.agents.add(a);
            q.byHiTid.put(a.hiTid(), a);
            return a;
        }
    }

    /**
     * Takes the agent out of the tables and ends its outstanding sends; returns them, for the
     * WR_FLUSH_ERR callbacks the caller makes.
     */
    List<MadSendWr> unregisterLocked(MadAgentImpl a) {
        a.open = false;
        QpInfo q = a.qp;
        q.agents.remove(a);
        q.byHiTid.remove(a.hiTid(), a);
        q.claims.values().removeIf(x -> x == a);
        List<MadSendWr> flushed = new ArrayList<>(a.outstanding.values());
        a.outstanding.clear();
        for (MadSendWr wr : flushed) {
            sends.endLocked(wr);
        }
        return flushed;
    }

    // ------------------------------------------------------------------ completions

    /** {@code ib_mad_completion_handler}, on the MAD thread. */
    private void poll() {
        synchronized (this) {
            if (dead) {
                return;
            }
            try {
                do {
                    for (int n; (n = cq.poll(wcs)) > 0; ) {
                        for (int i = 0; i < n; i++) {
                            completion(wcs[i]);
                        }
                    }
                } while (!dead && cq.reqNotify(CqNotify.NEXT_COMP, true));
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.WARNING, device.name() + "/" + port + ": CQ poll failed", e);
            }
        }
    }

    private void completion(WorkCompletion wc) {
        long id = wc.wrId();
        QpInfo q = qps[(int) (id >>> 40)];
        int slot = (int) (id & 0xffff_ffffL);
        try {
            if ((id & SEND_BIT) != 0) {
                sends.sendDoneLocked(q, slot, wc.status());
            } else {
                recvDone(q, slot, wc);
            }
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": completion " + wc + " failed", e);
        }
    }

    /** {@code ib_mad_recv_done}: copy out, repost, validate, dispatch. */
    private void recvDone(QpInfo q, int slot, WorkCompletion wc) {
        if (wc.status() != WcStatus.SUCCESS) {
            if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                counters.inc(MadCounters.RECV_ERRORS);
                q.postRecv(slot);
            }
            return;
        }
        counters.inc(MadCounters.RCVD);
        int off = slot * RECV_SLOT;
        byte[] grh = null;
        if ((wc.wcFlags() & WcFlags.GRH) != 0) {
            grh = new byte[WcFlags.GRH_BYTES];
            q.recvBuf.get(off, grh);
        }
        int len = wc.byteLen() - WcFlags.GRH_BYTES;
        byte[] bytes = null;
        if (len >= Mad.SIZE) {
            bytes = new byte[Mad.SIZE];
            q.recvBuf.get(off + WcFlags.GRH_BYTES, bytes);
        }
        // a driver that writes no GRH must not show the previous one (hw-loopback writes one only for a global AV)
        q.recvBuf.put(off, NO_GRH);
        MadSource src = MadSource.of(wc, grh);
        q.postRecv(slot);
        dispatchLocked(q, bytes, src);
    }

    /** {@code validate_mad}, then {@code find_mad_agent} and the response/request paths. */
    void dispatchLocked(QpInfo q, byte[] bytes, MadSource src) {
        if (bytes == null) {
            counters.inc(MadCounters.DROPPED_MALFORMED);
            return;
        }
        Mad mad = new Mad(bytes);
        if (mad.baseVersion() != Mad.BASE_VERSION || isSmpClass(mad.mgmtClass()) != (q.type == QpType.SMI)) {
            counters.inc(MadCounters.DROPPED_MALFORMED);
            return;
        }
        if (mad.mgmtClass() == Mad.CLASS_SUBN_DIRECTED_ROUTE
                && (Smi.recv(mad, port, device.physPortCnt()) == Smi.Action.DISCARD
                        || Smi.recvForLocal(mad, port) == Smi.Action.DISCARD)) {
            counters.inc(MadCounters.DROPPED_SMI);
            return;
        }
        if (q.type == QpType.GSI && Rmpp.active(mad) && Rmpp.type(mad) != Rmpp.TYPE_DATA) {
            rmpp.senderControlLocked(q, mad); // ACK/STOP/ABORT of a transfer we send
            return;
        }
        if (mad.isResponse()) {
            MadAgentImpl a = q.byHiTid.get((int) (mad.tid() >>> 32));
            MadSendWr wr = a == null ? null : MadSendQueue.findRequest(a, mad.tid(), mad.mgmtClass());
            if (wr == null) {
                counters.inc(MadCounters.DROPPED_UNMATCHED_RESP);
                return;
            }
            if (Rmpp.active(mad)) {
                mad = rmpp.recvSegmentLocked(q, wr, mad, src);
                if (mad == null) {
                    return;
                }
            }
            a.recvCallback(src.recv(mad, wr.send));
            sends.respondedLocked(wr);
            return;
        }
        MadAgentImpl a = q.claims.get(claimKey(mad.mgmtClass(), mad.classVersion(), mad.method()));
        if (a != null) {
            a.recvCallback(src.recv(mad, null));
            return;
        }
        if (mad.method() == Mad.METHOD_GET || mad.method() == Mad.METHOD_SET) {
            replyUnsupported(q, mad, src);
            return;
        }
        counters.inc(MadCounters.DROPPED_UNCLAIMED);
    }

    /** {@code generate_unmatched_resp}: GetResp, status UNSUPPORTED_METHOD_ATTRIB, back to the sender. */
    private void replyUnsupported(QpInfo q, Mad req, MadSource src) {
        Mad resp = new Mad(req.bytes().clone());
        resp.method(Mad.METHOD_GET_RESP);
        int status = Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
        if (req.mgmtClass() == Mad.CLASS_SUBN_DIRECTED_ROUTE) {
            status |= SMP_DIRECTION;
        }
        resp.status(status);
        sends.postReplyLocked(q, resp, src, MadCounters.UNSUPPORTED_REPLIES);
    }

    /** The index of our GID {@code gid} (a received GRH's destination), 0 if none or unknown. */
    int gidIndex(Gid gid) {
        if (gid != null) {
            int n = device.queryPort(port).gidTblLen();
            for (int i = 0; i < n; i++) {
                if (gid.equals(device.queryGid(port, i))) {
                    return i;
                }
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return device.name() + "/" + port;
    }
}
