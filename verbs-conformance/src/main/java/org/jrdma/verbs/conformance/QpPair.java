package org.jrdma.verbs.conformance;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SignalType;

/**
 * Two QPs of one type, one on each side of the bed, built the usual way: a PD and a send and
 * receive CQ per side, RESET to INIT to RTR to RTS with the attributes a ULP (or the CM) would
 * use: path MTU from the ports' active MTUs, timeout 14, retry_cnt 7, the RNR settings asked for.
 * UD pairs get a Q_Key and an address handle per side to the other.
 * <pre>{@code
 * QpPair p = QpPair.builder(res, QpType.RC).rnrRetry(2).minRnrTimer(1).build();
 * }</pre>
 */
public final class QpPair {
    /** The PSN A sends from (and B expects): close to the 24-bit wrap, so long transfers wrap it. */
    public static final int PSN_A_TO_B = 0xfffff0;
    public static final int PSN_B_TO_A = 0x000100;
    public static final int DEFAULT_QKEY = 0x1111_2222;

    public final QpType type;
    public final Side a;
    public final Side b;
    public final Mtu mtu;
    public final int qkey;
    private final Builder cfg;

    private QpPair(QpType type, Side a, Side b, Mtu mtu, int qkey, Builder cfg) {
        this.type = type;
        this.a = a;
        this.b = b;
        this.mtu = mtu;
        this.qkey = qkey;
        this.cfg = cfg;
        a.peer = b;
        b.peer = a;
    }

    /** The SRQ side B takes its receives from, or null. */
    public SharedReceiveQueue srqB() {
        return cfg.srqB;
    }

    public static Builder builder(Resources res, QpType type) {
        return new Builder(res, type);
    }

    public static QpPair rc(Resources res) {
        return builder(res, QpType.RC).build();
    }

    public static QpPair uc(Resources res) {
        return builder(res, QpType.UC).build();
    }

    public static QpPair ud(Resources res) {
        return builder(res, QpType.UD).build();
    }

    /**
     * A special QP (SMI: QP0, GSI: QP1) of side {@code s}'s port and PD, created through the verbs as ib-mad's
     * {@code MadPort} creates its own (the bed's core runs no MAD layer), in RTS with Q_Key {@code qkey}; receives
     * complete into {@code rcq}, sends into the side's send CQ.
     */
    public static QueuePair special(Side s, QpType type, CompletionQueue rcq, int qkey) {
        QueuePair qp = s.res.qp(s.pd, new QpInitAttr().qpType(type).portNum(s.port).sendCq(s.scq).recvCq(rcq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1))
                .sqSigType(SignalType.REQ_WR));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).qkey(qkey));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        return qp;
    }

    /** The path MTU two ports can use: the smaller active MTU. */
    public static Mtu pathMtu(IbDevice a, int portA, IbDevice b, int portB) {
        Mtu ma = a.queryPort(portA).activeMtu();
        Mtu mb = b.queryPort(portB).activeMtu();
        return ma.bytes() <= mb.bytes() ? ma : mb;
    }

    // ---------------------------------------------------------------- the attributes of each step

    /** RESET to INIT with what the table requires for {@code type}. */
    public static QpAttr initAttr(QpType type, int port, int access, int qkey) {
        QpAttr a = new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port);
        return type == QpType.UD ? a.qkey(qkey) : a.accessFlags(access);
    }

    /** INIT to RTR: for RC and UC the path to the peer; UD needs nothing. */
    public static QpAttr rtrAttr(QpType type, AhAttr av, Mtu mtu, int destQpn, int rqPsn, int maxDestRdAtomic,
            int minRnrTimer) {
        QpAttr a = new QpAttr().state(QpState.RTR);
        if (type == QpType.UD) {
            return a;
        }
        a.av(av).pathMtu(mtu).destQpNum(destQpn).rqPsn(rqPsn);
        if (type == QpType.RC) {
            a.maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
        }
        return a;
    }

    /** RTR to RTS: the PSN, and for RC the timers and initiator depth. */
    public static QpAttr rtsAttr(QpType type, int sqPsn, int timeout, int retryCnt, int rnrRetry, int maxRdAtomic) {
        QpAttr a = new QpAttr().state(QpState.RTS).sqPsn(sqPsn);
        if (type == QpType.RC) {
            a.timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry).maxRdAtomic(maxRdAtomic);
        }
        return a;
    }

    /** The AV from {@code from}'s port to {@code to}'s port, as the bed describes it. */
    static AhAttr av(VerbsTestBed bed, int fromPort, IbDevice to, int toPort) {
        return bed.avTo(to, toPort).copy().portNum(fromPort);
    }

    /** Connects the pair again (e.g. after a test moved it to RESET): RESET to INIT, RTR, RTS. */
    public void reconnect() {
        connectAll(cfg.res.bed(), cfg, a, b, mtu, qkey);
    }

    /** Brings a (RESET) QP of this pair's side {@code s} to INIT with the pair's attributes. */
    public void toInit(Side s) {
        s.qp.modify(initAttr(type, s.port, s == a ? cfg.accessA : cfg.accessB, qkey));
    }

    public void toRtr(Side s) {
        Side peer = s.peer;
        s.qp.modify(rtrAttr(type, av(cfg.res.bed(), s.port, peer.dev, peer.port), mtu, peer.qp.qpNum(),
                s == a ? PSN_B_TO_A : PSN_A_TO_B,
                s == b && cfg.maxDestRdAtomicB >= 0 ? cfg.maxDestRdAtomicB : maxDestRdAtomic(s.dev), cfg.minRnrTimer));
    }

    public void toRts(Side s) {
        s.qp.modify(rtsAttr(type, s == a ? PSN_A_TO_B : PSN_B_TO_A, cfg.timeout, cfg.retryCnt, cfg.rnrRetry,
                maxRdAtomic(s.dev)));
    }

    /**
     * Connects the pair again from RESET with new PSNs, as a consumer reconnecting picks them (rdma_cm: random):
     * a packet of the old connection still in flight then falls outside the new one's window instead of matching it.
     */
    public void reconnect(int psnAtoB, int psnBtoA) {
        connectAll(cfg.res.bed(), cfg, a, b, mtu, qkey, psnAtoB & 0xffffff, psnBtoA & 0xffffff);
    }

    private static void connectAll(VerbsTestBed bed, Builder c, Side a, Side b, Mtu mtu, int qkey) {
        connectAll(bed, c, a, b, mtu, qkey, PSN_A_TO_B, PSN_B_TO_A);
    }

    private static void connectAll(VerbsTestBed bed, Builder c, Side a, Side b, Mtu mtu, int qkey, int psnAtoB,
            int psnBtoA) {
        QpType t = c.type;
        a.qp.modify(initAttr(t, a.port, c.accessA, qkey));
        b.qp.modify(initAttr(t, b.port, c.accessB, qkey));
        a.qp.modify(rtrAttr(t, av(bed, a.port, b.dev, b.port), mtu, b.qp.qpNum(), psnBtoA, maxDestRdAtomic(a.dev),
                c.minRnrTimer));
        b.qp.modify(rtrAttr(t, av(bed, b.port, a.dev, a.port), mtu, a.qp.qpNum(), psnAtoB,
                c.maxDestRdAtomicB >= 0 ? c.maxDestRdAtomicB : maxDestRdAtomic(b.dev), c.minRnrTimer));
        a.qp.modify(rtsAttr(t, psnAtoB, c.timeout, c.retryCnt, c.rnrRetry, maxRdAtomic(a.dev)));
        b.qp.modify(rtsAttr(t, psnBtoA, c.timeout, c.retryCnt, c.rnrRetry, maxRdAtomic(b.dev)));
    }

    static int maxRdAtomic(IbDevice d) {
        return Math.min(16, d.queryDevice().maxQpInitRdAtom());
    }

    static int maxDestRdAtomic(IbDevice d) {
        return Math.min(16, d.queryDevice().maxQpRdAtom());
    }

    @Override
    public String toString() {
        return type + " pair " + a + " <-> " + b + ", path MTU " + mtu.bytes();
    }

    /** Options of a pair; every one has the default a plain test wants. */
    public static final class Builder {
        final Resources res;
        final QpType type;
        int rnrRetry = 7;
        int minRnrTimer = 1; // 0.01 ms
        int timeout = 14;
        int retryCnt = 6; // finite on every driver (Linux rxe and hw-rxe retry forever at 7)
        int maxDestRdAtomicB = -1;
        int accessA = Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        int accessB = Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        boolean sigAll;
        int maxSendWr = 64;
        int maxRecvWr = 64;
        int maxSge = 4;
        int maxInline = 64;
        int cqe = 256;
        int qkey = DEFAULT_QKEY;
        boolean connect = true;
        ProtectionDomain pdA;
        ProtectionDomain pdB;
        SharedReceiveQueue srqA;
        SharedReceiveQueue srqB;
        CompletionQueue scqA;
        CompletionQueue rcqA;
        CompletionQueue scqB;
        CompletionQueue rcqB;

        Builder(Resources res, QpType type) {
            this.res = res;
            this.type = type;
        }

        /** RNR retries of both QPs (7 = infinite). */
        public Builder rnrRetry(int v) { rnrRetry = v; return this; }
        /** The RNR NAK timer code both QPs use as responders. */
        public Builder minRnrTimer(int v) { minRnrTimer = v; return this; }
        /** Local ACK timeout code (4.096 us * 2^timeout). */
        public Builder timeout(int v) { timeout = v; return this; }
        public Builder retryCnt(int v) { retryCnt = v; return this; }
        /** B's responder resources (max_dest_rd_atomic); by default what the device offers, at most 16. */
        public Builder maxDestRdAtomicB(int v) { maxDestRdAtomicB = v; return this; }
        /** qp_access_flags of both QPs. */
        public Builder access(int v) { accessA = v; accessB = v; return this; }
        public Builder accessA(int v) { accessA = v; return this; }
        public Builder accessB(int v) { accessB = v; return this; }
        /** sq_sig_type ALL_WR instead of REQ_WR. */
        public Builder sigAll(boolean v) { sigAll = v; return this; }
        public Builder maxSendWr(int v) { maxSendWr = v; return this; }
        public Builder maxRecvWr(int v) { maxRecvWr = v; return this; }
        public Builder maxSge(int v) { maxSge = v; return this; }
        public Builder maxInline(int v) { maxInline = v; return this; }
        /** Entries of the CQs the pair makes. */
        public Builder cqe(int v) { cqe = v; return this; }
        public Builder qkey(int v) { qkey = v; return this; }
        /** false: leave both QPs in RESET. */
        public Builder connect(boolean v) { connect = v; return this; }
        /** Use these PDs instead of new ones (several pairs sharing memory). */
        public Builder pds(ProtectionDomain a, ProtectionDomain b) { pdA = a; pdB = b; return this; }
        public Builder srqB(SharedReceiveQueue v) { srqB = v; return this; }
        public Builder srqA(SharedReceiveQueue v) { srqA = v; return this; }
        /** Use these CQs on side A (send, receive) instead of new ones. */
        public Builder cqsA(CompletionQueue send, CompletionQueue recv) { scqA = send; rcqA = recv; return this; }
        public Builder cqsB(CompletionQueue send, CompletionQueue recv) { scqB = send; rcqB = recv; return this; }

        public QpPair build() {
            VerbsTestBed bed = res.bed();
            Side a = side("A", bed.a(), bed.portA(), pdA, srqA, scqA, rcqA);
            Side b = side("B", bed.b(), bed.portB(), pdB, srqB, scqB, rcqB);
            Mtu mtu = pathMtu(a.dev, a.port, b.dev, b.port);
            if (type == QpType.UD) {
                a.ahToPeer = res.ah(a.pd, av(bed, a.port, b.dev, b.port));
                b.ahToPeer = res.ah(b.pd, av(bed, b.port, a.dev, a.port));
            }
            QpPair p = new QpPair(type, a, b, mtu, qkey, this);
            if (connect) {
                connectAll(bed, this, a, b, mtu, qkey);
            }
            return p;
        }

        private Side side(String name, IbDevice dev, int port, ProtectionDomain pd, SharedReceiveQueue srq,
                CompletionQueue scq, CompletionQueue rcq) {
            DeviceAttr da = dev.queryDevice();
            ProtectionDomain p = pd != null ? pd : res.pd(dev);
            EventLog cqEvents = new EventLog();
            CompletionQueue s = scq != null ? scq : res.cq(dev, cqe, cqEvents);
            CompletionQueue r = rcq != null ? rcq : res.cq(dev, cqe, cqEvents);
            EventLog events = new EventLog();
            QpCap cap = new QpCap().maxSendWr(Math.min(maxSendWr, da.maxQpWr()))
                    .maxRecvWr(srq != null ? 0 : Math.min(maxRecvWr, da.maxQpWr()))
                    .maxSendSge(Math.min(maxSge, da.maxSendSge())).maxRecvSge(Math.min(maxSge, da.maxRecvSge()))
                    .maxInlineData(Math.min(maxInline, da.maxInlineData()));
            QueuePair qp = res.qp(p, new QpInitAttr().qpType(type).sendCq(s).recvCq(r).srq(srq).cap(cap)
                    .sqSigType(sigAll ? SignalType.ALL_WR : SignalType.REQ_WR).eventHandler(events));
            return new Side(name, res, dev, port, p, s, r, qp, events, cqEvents);
        }
    }
}
