package org.jrdma.ib.mad.impl;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
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
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.MadService;

/**
 * {@code struct ib_mad_port_private}: the special QPs of one port (SMI QP0 on InfiniBand ports, GSI
 * QP1 always) with their PD, their shared CQ, a ring of receive buffers and a pool of send buffers, and
 * the agents registered on them.
 *
 * <p>Threads: the CQ handler only schedules {@link #poll} on the MAD thread, where receives are
 * dispatched, send completions processed and response timers fire. Callers' threads come in through
 * {@link #send}, {@link #modify}, agent registration and close. All of it is serialized by this
 * object's monitor; agents' handlers are never called with it held (they are queued on the MAD thread).
 */
final class MadPort {
    /** Receive buffers per QP ({@code mad_recvq_size} is 512 in Linux). */
    static final int RECV_DEPTH = 256;
    /** Send buffers (and send queue depth) per QP ({@code mad_sendq_size} is 128 in Linux). */
    static final int SEND_DEPTH = 64;
    /** One receive buffer: the 40-byte GRH room, then the MAD. */
    static final int RECV_SLOT = RdmaHdr.BYTES + Mad.SIZE;
    /** {@code IB_SMP_DIRECTION}: the D bit in the status of a directed-route SMP. */
    static final int SMP_DIRECTION = 0x8000;
    private static final byte[] NO_GRH = new byte[RdmaHdr.BYTES];
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
    /** The address handles of sends not released yet (destroyed at teardown if still here). */
    private final Set<AddressHandle> ahs = new HashSet<>();
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
        private ByteBuffer recvBuf;
        private MemoryRegion recvMr;
        private ByteBuffer sendBuf;
        private MemoryRegion sendMr;
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

    private void destroy() {
        for (QpInfo q : qps) {
            if (q != null) {
                q.destroy();
            }
        }
        for (AddressHandle ah : ahs) {
            quietly("destroy AH", ah::destroy);
        }
        ahs.clear();
        if (cq != null) {
            quietly("destroy CQ", cq::destroy);
        }
        if (pd != null) {
            quietly("deallocate PD", pd::dealloc);
        }
    }

    private void quietly(String what, Runnable r) {
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
            endLocked(wr);
        }
        return flushed;
    }

    // ------------------------------------------------------------------ send

    /** {@code ib_post_send_mad}. */
    void send(MadAgentImpl agent, MadSend send) {
        if (send == null || send.mad() == null) {
            throw new VerbsException(Errno.EINVAL, "send: no MAD");
        }
        if (send.ah() == null) {
            throw new VerbsException(Errno.EINVAL, "send: no destination (ah)");
        }
        if (send.timeoutMs() < 0 || send.retries() < 0) {
            throw new VerbsException(Errno.EINVAL, "send: timeout " + send.timeoutMs() + " ms, retries "
                    + send.retries());
        }
        synchronized (this) {
            if (!agent.open || dead) {
                throw new VerbsException(Errno.ENODEV, "send: agent " + agent + " is closed"
                        + (dead ? " (the device is gone)" : ""));
            }
            if (agent.outstanding.containsKey(send)) {
                throw new VerbsException(Errno.EINVAL, "send: " + send + " is still outstanding");
            }
            Mad m = send.mad();
            if (agent.qp.type == QpType.SMI && m.mgmtClass() == Mad.CLASS_SUBN_DIRECTED_ROUTE) {
                // handle_outgoing_dr_smp: the SMI rules first; what stays on this node never hits the wire
                if (Smi.send(m, port) == Smi.Action.DISCARD) {
                    counters.inc(MadCounters.DROPPED_SMI);
                    throw new VerbsException(Errno.EINVAL, String.format("send: directed-route SMP discarded by the SMI"
                            + " (hop pointer %d, hop count %d, initial path[1] %d, port %d)", m.u8(Smi.HOP_PTR),
                            m.u8(Smi.HOP_CNT), m.u8(Smi.INITIAL_PATH + 1), port));
                }
                if (Smi.isLocal(m)) {
                    MadSendWr wr = new MadSendWr(agent, send, null, agent.qp);
                    agent.outstanding.put(send, wr);
                    deliverLocalLocked(wr);
                    return;
                }
            }
            boolean rmpp = m.bytes().length > Mad.SIZE || send.rmppDataLen() >= 0;
            if (rmpp && agent.qp.type != QpType.GSI) {
                throw new VerbsException(Errno.EINVAL, "send: RMPP (a MAD of " + m.bytes().length
                        + " bytes) is for the GSI QP only");
            }
            if (rmpp && !Rmpp.classUsesRmpp(m.mgmtClass())) {
                // ib_register_mad_agent refuses an RMPP agent for such a class: its receivers read no RMPP header
                throw new VerbsException(Errno.EINVAL, String.format("send: class 0x%02x has no RMPP (a MAD of %d bytes)",
                        m.mgmtClass(), m.bytes().length));
            }
            AddressHandle ah = pd.createAh(send.ah().copy().portNum(port));
            ahs.add(ah);
            MadSendWr wr = new MadSendWr(agent, send, ah, agent.qp);
            if (rmpp) {
                wr.rmppInit();
            }
            agent.outstanding.put(send, wr);
            try {
                postLocked(wr);
            } catch (RuntimeException e) {
                agent.outstanding.remove(send);
                releaseAh(wr);
                throw e;
            }
        }
    }

    /**
     * A directed-route SMP for this very port (hop count 0): as {@code handle_outgoing_dr_smp} hands it to
     * the local SMA, it goes straight to this port's dispatch on the MAD thread, and the send is done as if
     * it had been transmitted.
     */
    private void deliverLocalLocked(MadSendWr wr) {
        counters.inc(MadCounters.SENT);
        wr.inflight++;
        byte[] copy = java.util.Arrays.copyOf(wr.send.mad().bytes(), Mad.SIZE);
        int slid = device.queryPort(port).lid();
        layer.execute(() -> {
            synchronized (this) {
                if (dead) {
                    return;
                }
                wr.inflight--;
                if (!wr.done) {
                    if (!wr.expectsResponse() || wr.responded) {
                        completeLocked(wr, WcStatus.SUCCESS);
                    } else {
                        startTimerLocked(wr);
                    }
                }
                counters.inc(MadCounters.RCVD);
                dispatch(wr.qp, copy, MadSource.local(slid, wr.send.pkeyIndex()));
            }
        });
    }

    /** Posts a send into a free send buffer, or queues it until one is free. */
    private void postLocked(MadSendWr wr) {
        if (wr.ah == null) {
            deliverLocalLocked(wr);
            return;
        }
        if (wr.rmppSegCount > 0) {
            // (re)send the window: from the segment after the last acknowledged one up to NewWindowLast
            wr.rmppNext = wr.rmppLastAck + 1;
            rmppSendWindowLocked(wr);
            return;
        }
        postBytesLocked(wr, wr.send.mad().bytes());
    }

    /**
     * {@code send_next_seg} of {@code mad_rmpp.c}: every segment from {@code rmppNext} up to the
     * receiver's window, each the headers (common, RMPP, class: {@code ib_get_mad_data_offset}) and the
     * next slice of class data; First carries the whole PayloadLength, Last the rest.
     */
    private void rmppSendWindowLocked(MadSendWr wr) {
        while (wr.rmppNext <= Math.min(wr.rmppNewWin, wr.rmppSegCount)) {
            int n = wr.rmppNext++;
            byte[] big = wr.send.mad().bytes();
            int hdr = Rmpp.dataOffset(wr.mgmtClass);
            int per = Mad.SIZE - hdr;
            int dataLen = wr.send.rmppDataLen() >= 0 ? wr.send.rmppDataLen() : big.length - hdr;
            int pad = wr.rmppSegCount * per - dataLen;
            byte[] seg = new byte[Mad.SIZE];
            System.arraycopy(big, 0, seg, 0, hdr);
            int from = hdr + (n - 1) * per;
            System.arraycopy(big, from, seg, hdr, Math.max(0, Math.min(per, Math.min(big.length, hdr + dataLen) - from)));
            Mad m = new Mad(seg);
            int flags = Rmpp.FLAG_ACTIVE | (n == 1 ? Rmpp.FLAG_FIRST : 0) | (n == wr.rmppSegCount ? Rmpp.FLAG_LAST : 0);
            long paylen = 0;
            if (n == 1) {
                paylen = (long) wr.rmppSegCount * Rmpp.RMPP_DATA - pad;
            }
            if (n == wr.rmppSegCount) {
                paylen = Rmpp.RMPP_DATA - pad;
            }
            Rmpp.set(m, Rmpp.TYPE_DATA, flags, n, paylen);
            postBytesLocked(wr, seg);
            counters.inc(MadCounters.RMPP_SEGS_SENT);
        }
    }

    /**
     * {@code process_rmpp_ack} / STOP / ABORT at the sender: an ACK moves the window (and ends the
     * transfer once the last segment is acknowledged); STOP and ABORT end it with REM_ABORT_ERR.
     * Anything that matches no RMPP send of ours is consumed silently.
     */
    private void rmppSenderControl(QpInfo q, Mad mad) {
        MadSendWr wr = null;
        for (MadAgentImpl a : q.agents) {
            for (MadSendWr w : a.outstanding.values()) {
                if (w.rmppSegCount > 0 && w.tid == mad.tid() && w.mgmtClass == mad.mgmtClass() && !w.done) {
                    wr = w;
                }
            }
        }
        if (wr == null) {
            return;
        }
        if (Rmpp.type(mad) != Rmpp.TYPE_ACK) {
            counters.inc(MadCounters.RMPP_ABORTS);
            completeLocked(wr, WcStatus.REM_ABORT_ERR);
            return;
        }
        long seg = Rmpp.segNum(mad);
        long newWin = Rmpp.paylenNewwin(mad);
        if (seg > wr.rmppSegCount || newWin < seg) {
            counters.inc(MadCounters.RMPP_ABORTS);
            completeLocked(wr, WcStatus.REM_ABORT_ERR);
            return;
        }
        if (seg < wr.rmppLastAck) {
            return; // an old ACK
        }
        wr.rmppLastAck = (int) seg;
        wr.rmppNewWin = (int) Math.max(wr.rmppNewWin, Math.min(newWin, wr.rmppSegCount));
        wr.retriesLeft = wr.send.retries() > 0 ? wr.send.retries() : MadSendWr.RMPP_RETRIES;
        if (wr.rmppLastAck == wr.rmppSegCount) {
            wr.responded = true;
            wr.cancelTimer();
            if (wr.inflight == 0) {
                completeLocked(wr, WcStatus.SUCCESS);
            }
            return;
        }
        startTimerLocked(wr);
        if (wr.rmppNext <= wr.rmppLastAck) {
            wr.rmppNext = wr.rmppLastAck + 1;
        }
        try {
            rmppSendWindowLocked(wr);
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": RMPP segment send failed", e);
            completeLocked(wr, WcStatus.GENERAL_ERR);
        }
    }

    private void postBytesLocked(MadSendWr wr, byte[] bytes) {
        QpInfo q = wr.qp;
        Integer slot = q.freeSlots.poll();
        if (slot == null) {
            wr.queued = true;
            wr.queuedBytes.add(bytes);
            q.overflow.add(wr);
            counters.inc(MadCounters.SEND_QUEUED);
            return;
        }
        int off = slot * Mad.SIZE;
        q.sendBuf.put(off, bytes, 0, Mad.SIZE);
        SendWr swr = new SendWr().wrId(q.wrId(true, slot)).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(q.sendMr.iova() + off, Mad.SIZE, q.sendMr.lkey()))
                .ud(wr.ah, wr.send.remoteQpn(), wr.send.remoteQkey()).pkeyIndex(wr.send.pkeyIndex());
        q.sendSlots[slot] = wr;
        wr.inflight++;
        try {
            q.qp.postSend(swr);
        } catch (RuntimeException e) {
            wr.inflight--;
            q.sendSlots[slot] = null;
            q.freeSlots.push(slot);
            throw e;
        }
        counters.inc(MadCounters.SENT);
    }

    /** {@code ib_modify_mad}; 0 cancels ({@code ib_cancel_mad}). */
    boolean modify(MadAgentImpl agent, MadSend send, int timeoutMs) {
        synchronized (this) {
            MadSendWr wr = agent.outstanding.get(send);
            if (wr == null || wr.done) {
                return false;
            }
            if (timeoutMs == 0) {
                completeLocked(wr, WcStatus.WR_FLUSH_ERR);
                return true;
            }
            wr.timeoutMs = timeoutMs;
            send.timeoutMs(timeoutMs);
            if (wr.timer != null) {
                startTimerLocked(wr);
            }
            return true;
        }
    }

    private void startTimerLocked(MadSendWr wr) {
        wr.cancelTimer();
        int gen = wr.timerGen;
        wr.timer = layer.schedule(() -> timeout(wr, gen), wr.timeoutMs);
    }

    /** {@code timeout_sends}: resend, or end with RESP_TIMEOUT_ERR once the retries are used up. */
    private void timeout(MadSendWr wr, int gen) {
        synchronized (this) {
            if (dead || wr.done || gen != wr.timerGen || wr.responded) {
                return;
            }
            if (wr.inflight > 0) {
                wr.timer = null; // the send completion restarts it
                return;
            }
            wr.timer = null;
            if (wr.retriesLeft > 0) {
                wr.retriesLeft--;
                counters.inc(MadCounters.RETRIES);
                try {
                    postLocked(wr);
                } catch (RuntimeException e) {
                    MadLayer.LOG.log(System.Logger.Level.WARNING, wr.qp + ": resend failed", e);
                    completeLocked(wr, WcStatus.GENERAL_ERR);
                }
            } else {
                counters.inc(MadCounters.TIMEOUTS);
                completeLocked(wr, WcStatus.RESP_TIMEOUT_ERR);
            }
        }
    }

    /** The send is done: its agent hears {@code status} (queued on the MAD thread). */
    private void completeLocked(MadSendWr wr, WcStatus status) {
        endLocked(wr);
        if (wr.agent != null) {
            wr.agent.outstanding.remove(wr.send);
            wr.agent.sendDoneCallback(wr.send, status);
        }
    }

    private void endLocked(MadSendWr wr) {
        wr.done = true;
        wr.cancelTimer();
        if (wr.queued) {
            wr.qp.overflow.removeIf(x -> x == wr);
            wr.queuedBytes.clear();
            wr.queued = false;
        }
        if (wr.inflight == 0) {
            releaseAh(wr);
        }
    }

    private void releaseAh(MadSendWr wr) {
        if (ahs.remove(wr.ah)) {
            quietly("destroy AH", wr.ah::destroy);
        }
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
                sendDone(q, slot, wc.status());
            } else {
                recvDone(q, slot, wc);
            }
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": completion " + wc + " failed", e);
        }
    }

    /** {@code ib_mad_send_done}. */
    private void sendDone(QpInfo q, int slot, WcStatus status) {
        MadSendWr wr = q.sendSlots[slot];
        q.sendSlots[slot] = null;
        q.freeSlots.push(slot);
        if (wr != null) {
            wr.inflight--;
            if (wr.done) {
                if (wr.inflight == 0) {
                    releaseAh(wr);
                }
            } else if (status != WcStatus.SUCCESS) {
                if (status != WcStatus.WR_FLUSH_ERR) {
                    counters.inc(MadCounters.SEND_ERRORS);
                }
                completeLocked(wr, status);
            } else if (!wr.expectsResponse() || wr.responded) {
                if (wr.inflight == 0) {
                    completeLocked(wr, WcStatus.SUCCESS);
                }
            } else if (wr.inflight == 0 && wr.timer == null) {
                startTimerLocked(wr);
            }
        }
        while (!q.freeSlots.isEmpty() && !q.overflow.isEmpty()) {
            MadSendWr next = q.overflow.poll();
            byte[] bytes = next.queuedBytes.poll();
            next.queued = !next.queuedBytes.isEmpty();
            try {
                postBytesLocked(next, bytes == null ? next.send.mad().bytes() : bytes);
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": queued send failed", e);
                completeLocked(next, WcStatus.GENERAL_ERR);
            }
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
            grh = new byte[RdmaHdr.BYTES];
            q.recvBuf.get(off, grh);
        }
        int len = wc.byteLen() - RdmaHdr.BYTES;
        byte[] bytes = null;
        if (len >= Mad.SIZE) {
            bytes = new byte[Mad.SIZE];
            q.recvBuf.get(off + RdmaHdr.BYTES, bytes);
        }
        // a driver that writes no GRH (hw-loopback) must not show the previous one
        q.recvBuf.put(off, NO_GRH);
        MadSource src = MadSource.of(wc, grh);
        q.postRecv(slot);
        dispatch(q, bytes, src);
    }

    /** {@code validate_mad}, then {@code find_mad_agent} and the response/request paths. */
    private void dispatch(QpInfo q, byte[] bytes, MadSource src) {
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
            rmppSenderControl(q, mad); // ACK/STOP/ABORT of a transfer we send (ib_process_rmpp_recv_wc)
            return;
        }
        if (mad.isResponse()) {
            MadAgentImpl a = q.byHiTid.get((int) (mad.tid() >>> 32));
            MadSendWr wr = a == null ? null : findRequest(a, mad.tid(), mad.mgmtClass());
            if (wr == null) {
                counters.inc(MadCounters.DROPPED_UNMATCHED_RESP);
                return;
            }
            if (Rmpp.active(mad)) {
                mad = rmppRecv(q, wr, mad, src);
                if (mad == null) {
                    return;
                }
            }
            wr.responded = true;
            wr.cancelTimer();
            a.recvCallback(src.recv(mad, wr.send));
            if (wr.inflight == 0) {
                completeLocked(wr, WcStatus.SUCCESS);
            }
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

    /**
     * {@code ib_process_rmpp_recv_wc} for the requester: keeps the segments of a multi-MAD response in
     * order, acknowledges each, and returns the reassembled MAD (the first segment's headers, then every
     * segment's class data; the first segment's PayloadLength is the total) once the last is in, else null.
     */
    private Mad rmppRecv(QpInfo q, MadSendWr wr, Mad seg, MadSource src) {
        counters.inc(MadCounters.RMPP_SEGS_RCVD);
        long n = Rmpp.segNum(seg);
        if (wr.rmppSegs == null) {
            if (n != 1 || (Rmpp.flags(seg) & Rmpp.FLAG_FIRST) == 0) {
                counters.inc(MadCounters.RMPP_ABORTS);
                return null;
            }
            wr.rmppSegs = new ArrayList<>();
        }
        if (n == wr.rmppSegs.size() + 1) {
            wr.rmppSegs.add(seg.bytes().clone());
        }
        // the response timer covers the whole transfer: restart it on progress
        if (wr.timer != null) {
            startTimerLocked(wr);
        }
        Mad ack = new Mad(java.util.Arrays.copyOf(seg.bytes(), Mad.SIZE));
        java.util.Arrays.fill(ack.bytes(), 36, Mad.SIZE, (byte) 0);
        ack.method(ack.method() ^ Mad.METHOD_RESP); // format_ack: the ACK travels as a request
        Rmpp.set(ack, Rmpp.TYPE_ACK, Rmpp.FLAG_ACTIVE, wr.rmppSegs.size(), wr.rmppSegs.size() + Rmpp.WINDOW);
        postReply(q, ack, src, null);
        if ((Rmpp.flags(seg) & Rmpp.FLAG_LAST) == 0 || n != wr.rmppSegs.size()) {
            return null;
        }
        int hdr = Rmpp.dataOffset(seg.mgmtClass());
        int per = Mad.SIZE - hdr;
        int segs = wr.rmppSegs.size();
        long pad = Rmpp.RMPP_DATA - Rmpp.paylenNewwin(seg);
        if (pad < 0 || pad > per) {
            pad = 0;
        }
        int len = (int) (hdr + (long) segs * per - pad);
        byte[] all = new byte[Math.max(len, Mad.SIZE)];
        System.arraycopy(wr.rmppSegs.get(0), 0, all, 0, hdr);
        for (int i = 0; i < segs; i++) {
            System.arraycopy(wr.rmppSegs.get(i), hdr, all, hdr + i * per, Math.min(per, len - hdr - i * per));
        }
        wr.rmppSegs = null;
        counters.inc(MadCounters.RMPP_REASSEMBLED);
        return new Mad(all, Math.max(len, Rmpp.dataOffset(seg.mgmtClass())));
    }

    /**
     * A MAD of the layer itself (an RMPP ACK, an unmatched Get/Set's answer) back to where a receive came
     * from; {@code counter} (if any) is counted once the address is made.
     */
    private void postReply(QpInfo q, Mad m, MadSource src, String counter) {
        AhAttr av = src.replyAh(port, gidIndex(src.dgid()));
        MadSend send = new MadSend(m).ah(av).remoteQpn(src.srcQp()).remoteQkey(q.qkey()).pkeyIndex(src.pkeyIndex());
        try {
            AddressHandle ah = pd.createAh(av);
            ahs.add(ah);
            MadSendWr wr = new MadSendWr(null, send, ah, q);
            if (counter != null) {
                counters.inc(counter);
            }
            try {
                postLocked(wr);
            } catch (RuntimeException e) {
                releaseAh(wr);
                throw e;
            }
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": could not send " + m, e);
        }
    }

    /** {@code ib_find_send_mad}: the agent's request waiting for this response. */
    private static MadSendWr findRequest(MadAgentImpl a, long tid, int mgmtClass) {
        for (MadSendWr wr : a.outstanding.values()) {
            if (wr.tid == tid && wr.mgmtClass == mgmtClass && wr.expectsResponse() && !wr.done && !wr.responded) {
                return wr;
            }
        }
        return null;
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
        postReply(q, resp, src, MadCounters.UNSUPPORTED_REPLIES);
    }

    private int gidIndex(Gid gid) {
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
