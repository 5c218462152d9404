package org.jrdma.sw.rdmavt;

import java.util.concurrent.locks.ReentrantLock;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SignalType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.core.spi.DriverObjects;
import org.jrdma.ib.core.spi.DriverQp;
import org.jrdma.ib.core.spi.QpContext;

/**
 * A queue pair: attributes, the send queue and receive queue as preallocated rings, the
 * post-time checks of rxe's {@code rxe_post_send}/{@code validate_send_wr}, and the flush to
 * WR_FLUSH_ERR in ERR.
 * <p>Locking: the QP's monitor guards the rings and attributes and is held only briefly, never
 * while taking another QP's monitor. {@link #exec} is held by the engine while it runs one WQE;
 * a modify to ERR or RESET takes it too, so a WQE is never flushed while it runs.
 */
public class RvtQp implements DriverQp {
    public final RvtDevice dev;
    public final QpContext ctx;
    public final int qpn;
    public final QpType type;
    public final RvtPd pd;
    public final RvtCq scq;
    public final RvtCq rcq;
    public final RvtSrq srq;
    final QpCap cap;
    final boolean sigAll;
    public final ReentrantLock exec = new ReentrantLock();
    /** Whether {@link #fatal} logged this QP's failure already (the engine thread only). */
    private boolean fatalLogged;

    // attributes (guarded by this)
    volatile QpState state = QpState.RESET;
    int port;
    int pkeyIndex;
    int qkey;
    int accessFlags;
    AhAttr av;
    Mtu pathMtu = Mtu.MTU_1024;
    int destQpn;
    int timeout;
    int retryCnt;
    int rnrRetry;
    int minRnrTimer;
    int sqPsn;
    int rqPsn;
    int maxRdAtomic;
    int maxDestRdAtomic;
    boolean sqdNotify;
    boolean sqdEventPending;

    /** Set when destroyed, so a cached route to this QP is seen to be stale. */
    volatile boolean destroyed;
    /** The connected peer a driver resolved last (RC/UC); cleared when the path changes. */
    private volatile RvtQp destCache;

    private final SendWqe[] sq;
    private int sqHead;
    private int sqCount;
    private final RecvRing rq;
    private int rqHead;
    private int rqCount;

    /**
     * {@link RucLoopback}'s state of the head send WQE, the only one it runs (cleared whenever the head
     * moves): when it may run again (0: not tried yet), and the transport and RNR retries it has left.
     */
    long headNotBeforeNanos;
    int headRetriesLeft;
    int headRnrRetriesLeft;

    /** Makes the slots of a send queue: a packet engine with per-WQE state passes its subclass of {@link SendWqe}. */
    @FunctionalInterface
    public interface SlotFactory {
        SendWqe newSlot(int maxSge, int maxInline);
    }

    protected RvtQp(RvtDevice dev, QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
        this(dev, ctx, qpn, pd, a, scq, rcq, srq, SendWqe::new);
    }

    protected RvtQp(RvtDevice dev, QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq,
            SlotFactory slots) {
        this.dev = dev;
        this.ctx = ctx;
        this.qpn = qpn;
        this.type = a.qpType();
        this.pd = pd;
        this.scq = scq;
        this.rcq = rcq;
        this.srq = srq;
        this.cap = a.cap().copy();
        if (cap.maxSendSge() < 1) {
            cap.maxSendSge(1);
        }
        if (cap.maxRecvSge() < 1) {
            cap.maxRecvSge(1);
        }
        this.sigAll = a.sqSigType() == SignalType.ALL_WR;
        this.port = type.isSpecial() ? a.portNum() : 0;
        this.sq = new SendWqe[Math.max(cap.maxSendWr(), 0)];
        for (int i = 0; i < sq.length; i++) {
            sq[i] = slots.newSlot(cap.maxSendSge(), cap.maxInlineData());
        }
        this.rq = new RecvRing(srq == null ? Math.max(cap.maxRecvWr(), 0) : 0, cap.maxRecvSge());
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpCap cap() {
        return cap;
    }

    public QpState state() {
        return state;
    }

    public int destQpn() {
        return destQpn;
    }

    public AhAttr av() {
        return av;
    }

    public int port() {
        return port;
    }

    public int qkey() {
        return qkey;
    }

    public int accessFlags() {
        return accessFlags;
    }

    public Mtu pathMtu() {
        return pathMtu;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCnt() {
        return retryCnt;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public synchronized int sqPsn() {
        return sqPsn;
    }

    public synchronized int rqPsn() {
        return rqPsn;
    }

    public synchronized int maxRdAtomic() {
        return maxRdAtomic;
    }

    public synchronized int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public boolean signalsAll() {
        return sigAll;
    }

    /** The peer cached by {@link #cacheDestination}, if still alive. */
    public RvtQp cachedDestination() {
        RvtQp d = destCache;
        return d == null || d.destroyed ? null : d;
    }

    public void cacheDestination(RvtQp d) {
        destCache = d;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    // ---------------------------------------------------------------- modify / query

    void modify(QpAttr a) {
        boolean flush = false;
        boolean kick = false;
        boolean locked = false;
        if (a.has(QpAttrMask.STATE) && (a.state() == QpState.ERR || a.state() == QpState.RESET)) {
            exec.lock(); // never flush under a running WQE
            locked = true;
        }
        try {
            synchronized (this) {
                if (a.has(QpAttrMask.PORT)) port = a.port();
                if (a.has(QpAttrMask.PKEY_INDEX)) pkeyIndex = a.pkeyIndex();
                if (a.has(QpAttrMask.QKEY)) qkey = a.qkey();
                if (a.has(QpAttrMask.ACCESS_FLAGS)) accessFlags = a.accessFlags();
                if (a.has(QpAttrMask.AV) || a.has(QpAttrMask.DEST_QPN) || a.has(QpAttrMask.PORT)) destCache = null;
                if (a.has(QpAttrMask.AV)) av = a.av().copy();
                if (a.has(QpAttrMask.PATH_MTU)) pathMtu = a.pathMtu();
                if (a.has(QpAttrMask.DEST_QPN)) destQpn = a.destQpNum();
                if (a.has(QpAttrMask.TIMEOUT)) timeout = a.timeout();
                if (a.has(QpAttrMask.RETRY_CNT)) retryCnt = a.retryCnt();
                if (a.has(QpAttrMask.RNR_RETRY)) rnrRetry = a.rnrRetry();
                if (a.has(QpAttrMask.MIN_RNR_TIMER)) minRnrTimer = a.minRnrTimer();
                if (a.has(QpAttrMask.SQ_PSN)) sqPsn = a.sqPsn();
                if (a.has(QpAttrMask.RQ_PSN)) rqPsn = a.rqPsn();
                if (a.has(QpAttrMask.MAX_QP_RD_ATOMIC)) maxRdAtomic = a.maxRdAtomic();
                if (a.has(QpAttrMask.MAX_DEST_RD_ATOMIC)) maxDestRdAtomic = a.maxDestRdAtomic();
                if (a.has(QpAttrMask.EN_SQD_ASYNC_NOTIFY)) sqdNotify = a.enSqdAsyncNotify();
                if (a.has(QpAttrMask.STATE)) {
                    QpState next = a.state();
                    switch (next) {
                        case RESET -> {
                            sqHead = sqCount = 0;
                            rqHead = rqCount = 0;
                            headNotBeforeNanos = 0;
                        }
                        case ERR -> flush = true;
                        case RTS -> kick = sqCount > 0;
                        case SQD -> sqdEventPending = sqdNotify;
                        default -> {
                        }
                    }
                    state = next;
                }
            }
            if (flush) {
                flush();
            }
        } finally {
            if (locked) {
                exec.unlock(); // only our own hold: a handler called from the engine holds it already
            }
        }
        if (a.has(QpAttrMask.STATE)) {
            dev.stateChanged(this);
        }
        if (kick) {
            dev.sqPosted(this);
        }
        if (a.has(QpAttrMask.STATE) && a.state() == QpState.SQD) {
            sqdCheck();
        }
    }

    synchronized QpAttr query() {
        QpAttr a = new QpAttr().state(state).pkeyIndex(pkeyIndex).accessFlags(accessFlags).pathMtu(pathMtu)
                .destQpNum(destQpn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry).minRnrTimer(minRnrTimer)
                .sqPsn(sqPsn).rqPsn(rqPsn).maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic).cap(cap.copy())
                .enSqdAsyncNotify(sqdNotify);
        if (port != 0) {
            a.port(port);
        }
        if (type == QpType.UD || type.isSpecial()) {
            a.qkey(qkey);
        }
        if (av != null) {
            a.av(av.copy());
        }
        return a;
    }

    // ---------------------------------------------------------------- post

    void postSend(SendWr first) {
        boolean posted = false;
        boolean flushNow;
        try {
            synchronized (this) { // one lock for the whole chain
                for (SendWr wr = first; wr != null; wr = wr.next()) {
                    QpState s = state;
                    if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
                        throw new PostException(Errno.EINVAL, "post_send: QP " + qpn + " is in " + s
                                + "; sends need RTS", wr);
                    }
                    if (sqCount == sq.length) {
                        throw new PostException(Errno.ENOMEM, "post_send: the send queue of QP " + qpn
                                + " is full (" + sq.length + ")", wr);
                    }
                    // filled under the lock: concurrent posters must not share a slot
                    fill(sq[(sqHead + sqCount) % sq.length], wr);
                    sqCount++;
                    posted = true;
                }
            }
        } finally {
            synchronized (this) {
                flushNow = state == QpState.ERR;
            }
            if (flushNow) {
                flushOrDefer();
            } else if (posted) {
                dev.sqPosted(this);
            }
        }
    }

    /** {@code validate_send_wr} + {@code init_send_wqe}: checks, then copies the WR into the slot. */
    private void fill(SendWqe slot, SendWr wr) {
        WrOpcode op = wr.opcode();
        if (op == null || !WrOpcodeTable.valid(op, type)) {
            throw new PostException(Errno.EINVAL, "post_send: " + op + " is not valid on a " + type + " QP", wr);
        }
        if (wr.numSge() > cap.maxSendSge()) {
            throw new PostException(Errno.EINVAL, "post_send: " + wr.numSge() + " SGEs, max_send_sge is "
                    + cap.maxSendSge(), wr);
        }
        long len = wr.totalLength();
        if (WrOpcodeTable.isAtomic(op)) {
            if (wr.numSge() != 1 || len != 8) {
                throw new PostException(Errno.EINVAL, "post_send: an atomic needs one 8-byte SGE", wr);
            }
            if ((wr.remoteAddr() & 7) != 0) {
                throw new PostException(Errno.EINVAL, String.format(
                        "post_send: atomic remote address 0x%x is not 8-byte aligned", wr.remoteAddr()), wr);
            }
        }
        if (len > dev.attr.maxMrSize() || len > 0x7fffffffL) {
            throw new PostException(Errno.EINVAL, "post_send: message of " + len + " bytes is too long", wr);
        }
        RvtAh ah = null;
        if (type == QpType.UD || type.isSpecial()) {
            try {
                ah = (RvtAh) DriverObjects.ah(wr.ah(), ctx.qp().device());
            } catch (VerbsException e) {
                throw new PostException(Errno.EINVAL, "post_send: " + e.getMessage(), wr);
            }
            int mtu = dev.udMtu(this);
            if (len > mtu) {
                throw new PostException(Errno.EINVAL, "post_send: a UD message of " + len
                        + " bytes exceeds the path MTU " + mtu, wr);
            }
        }
        RvtMr mr = null;
        RvtMw mw = null;
        if (op == WrOpcode.REG_MR || op == WrOpcode.BIND_MW) {
            try {
                mr = wr.mr() == null ? null : (RvtMr) DriverObjects.mr(wr.mr(), ctx.qp().device());
                mw = op == WrOpcode.BIND_MW ? (RvtMw) DriverObjects.mw(wr.mw(), ctx.qp().device()) : null;
            } catch (VerbsException e) {
                throw new PostException(Errno.EINVAL, "post_send: " + e.getMessage(), wr);
            }
            if (op == WrOpcode.REG_MR && mr == null) {
                throw new PostException(Errno.EINVAL, "post_send: REG_MR without an MR", wr);
            }
        }
        slot.set(wr, type == QpType.UD || type.isSpecial(), ah, mr, mw);
        if ((wr.sendFlags() & SendFlags.INLINE) != 0 && !op.isLocal() && !WrOpcodeTable.isReadOrAtomic(op)) {
            if (len > cap.maxInlineData()) {
                throw new PostException(Errno.EINVAL, "post_send: " + len + " inline bytes, max_inline_data is "
                        + cap.maxInlineData(), wr);
            }
            // inline: the bytes are taken now, from wherever the SGEs point; no key rights are needed
            int off = 0;
            for (int i = 0; i < slot.numSge; i++) {
                RvtMem m = dev.keys.lookup(slot.sgeLkey(i));
                long addr = slot.sgeAddr(i);
                int length = slot.sgeLength(i);
                if (!(m instanceof RvtMr) || !((RvtMr) m).inRange(addr, length)) {
                    throw new PostException(Errno.EINVAL, "post_send: inline SGE " + i + " does not name registered memory", wr);
                }
                RvtMr r = (RvtMr) m;
                r.buffer().get(r.offset(addr), slot.inline, off, length);
                off += length;
            }
            slot.inlined = true;
        }
    }

    void postRecv(RecvWr first) {
        boolean flushNow;
        try {
            for (RecvWr wr = first; wr != null; wr = wr.next()) {
                synchronized (this) {
                    if (state == QpState.RESET) {
                        throw new PostException(Errno.EINVAL, "post_recv: QP " + qpn + " is in RESET", wr);
                    }
                    if (wr.numSge() > cap.maxRecvSge()) {
                        throw new PostException(Errno.EINVAL, "post_recv: " + wr.numSge() + " SGEs, max_recv_sge is "
                                + cap.maxRecvSge(), wr);
                    }
                    if (rqCount == rq.size) {
                        throw new PostException(Errno.ENOMEM, "post_recv: the receive queue of QP " + qpn
                                + " is full (" + rq.size + ")", wr);
                    }
                    rq.put((rqHead + rqCount) % rq.size, wr);
                    rqCount++;
                }
            }
        } finally {
            synchronized (this) {
                flushNow = state == QpState.ERR;
            }
            if (flushNow) {
                flushOrDefer();
            }
        }
        dev.rqPosted(this);
    }

    // ---------------------------------------------------------------- engine side

    /** The WQE at the head of the send queue, or null; it stays queued until {@link #popSend}. */
    public synchronized SendWqe peekSend() {
        return sqCount == 0 ? null : sq[sqHead];
    }

    /** The {@code i}-th queued send WQE counting from the head (0 = {@link #peekSend()}), or null. */
    public synchronized SendWqe sendAt(int i) {
        return i < 0 || i >= sqCount ? null : sq[(sqHead + i) % sq.length];
    }

    public synchronized void popSend() {
        sqHead = (sqHead + 1) % sq.length;
        sqCount--;
        headNotBeforeNanos = 0;
    }

    public synchronized int sendQueued() {
        return sqCount;
    }

    /** Takes a receive WQE (from the SRQ if there is one) into {@code into}. */
    public boolean takeRecv(RecvWqe into) {
        if (srq != null) {
            return srq.take(into);
        }
        synchronized (this) {
            if (rqCount == 0) {
                return false;
            }
            rq.get(rqHead, into);
            rqHead = (rqHead + 1) % rq.size;
            rqCount--;
            return true;
        }
    }

    /**
     * Retires the head WQE: its slot is freed before its completion is posted, so a ULP that sees
     * the completion can post again at once. A completion is posted always for errors, else only if
     * the WQE was signaled (or the QP signals all).
     */
    public void retireSend(SendWqe w, WcStatus status, WorkCompletion scratch) {
        boolean post = status != WcStatus.SUCCESS || w.signaled() || sigAll;
        if (post) {
            scratch.clear().wrId(w.wrId).status(status).opcode(w.opcode().wcOpcode()).qp(ctx.qp()).qpNum(qpn)
                    .portNum(port);
            if (status == WcStatus.SUCCESS) {
                switch (w.opcode()) {
                    case RDMA_READ, SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM ->
                            scratch.byteLen((int) w.totalLength());
                    case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> scratch.byteLen(8);
                    default -> {
                    }
                }
            }
        }
        popSend(); // w may be reused by a poster from here on
        if (post) {
            scq.post(scratch, false);
        }
    }

    /**
     * An unexpected exception while the engine ran this QP (a bug, never bad input: that has its own status).
     * Call with {@link #exec} held. The head send WQE completes with LOC_QP_OP_ERR, the QP goes to ERR with
     * IB_EVENT_QP_FATAL and flushes, so the ULP sees it and nothing retries the failing step for ever. Only the
     * first failure of a QP is logged with its stack (it was once logged 163,212 times in 100 s).
     */
    public void fatal(RuntimeException e) {
        if (!fatalLogged) {
            fatalLogged = true;
            System.getLogger("org.jrdma.sw.rdmavt").log(System.Logger.Level.ERROR,
                    "engine failed on " + this + "; the QP goes to ERR (QP_FATAL)", e);
        }
        if (state() == QpState.ERR || isDestroyed()) {
            return;
        }
        SendWqe w = peekSend();
        if (w != null) {
            retireSend(w, WcStatus.LOC_QP_OP_ERR, new WorkCompletion());
        }
        toError();
        ctx.event(EventType.QP_FATAL);
    }

    /** Error: the QP goes to ERR (the driver's own move, reported up) and everything left flushes. */
    public void toError() {
        synchronized (this) {
            if (state == QpState.ERR) {
                return;
            }
            state = QpState.ERR;
        }
        ctx.stateChanged(QpState.ERR);
        flushOrDefer();
    }

    /**
     * Flushes both queues now unless another thread is running a WQE of this QP (a responder's
     * error raised from the requester's engine thread, or a post in ERR racing the engine): then
     * only the receive queue is flushed here, and the engine flushes the send queue once the WQE
     * it runs has completed ({@link RucLoopback#step} in ERR). Flushing the head WQE under a
     * running engine would complete it twice and drive the queue count negative.
     */
    void flushOrDefer() {
        if (exec.tryLock()) { // reentrant: the engine erroring its own QP holds it already
            try {
                flush();
            } finally {
                exec.unlock();
            }
        } else {
            flushRecv();
            dev.sqPosted(this);
        }
    }

    /** Every queued WQE completes with WR_FLUSH_ERR (send and receive), as {@code rxe_qp_error}. Needs {@link #exec}. */
    void flush() {
        WorkCompletion wc = new WorkCompletion();
        while (true) {
            SendWqe w;
            synchronized (this) {
                if (sqCount == 0) {
                    break;
                }
                w = sq[sqHead];
                wc.clear().wrId(w.wrId).status(WcStatus.WR_FLUSH_ERR).opcode(w.opcode().wcOpcode()).qp(ctx.qp())
                        .qpNum(qpn).portNum(port);
                sqHead = (sqHead + 1) % sq.length;
                sqCount--;
                headNotBeforeNanos = 0;
            }
            scq.post(wc, false);
        }
        flushRecv();
    }

    /**
     * For a packet engine outside this package: {@link #flush} (both queues to WR_FLUSH_ERR). Call it
     * with {@link #exec} held, when the QP is in ERR and a flush was deferred to the engine.
     */
    public void engineFlush() {
        flush();
    }

    /** The receive half of {@link #flush}: safe from any thread. */
    void flushRecv() {
        WorkCompletion wc = new WorkCompletion();
        if (srq != null) {
            return; // an SRQ's WQEs belong to the SRQ, not to this QP
        }
        while (true) {
            synchronized (this) {
                if (rqCount == 0) {
                    break;
                }
                wc.clear().wrId(rq.wrId(rqHead)).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV).qp(ctx.qp())
                        .qpNum(qpn).portNum(port);
                rqHead = (rqHead + 1) % rq.size;
                rqCount--;
            }
            rcq.post(wc, false);
        }
    }

    /** In SQD with nothing running, raise SQ_DRAINED once (if asked for). */
    public void sqdCheck() {
        boolean fire;
        synchronized (this) {
            fire = state == QpState.SQD && sqdEventPending && !exec.isLocked();
            if (fire) {
                sqdEventPending = false;
            }
        }
        if (fire) {
            ctx.event(EventType.SQ_DRAINED);
        }
    }

    @Override
    public String toString() {
        return type + " QP " + qpn;
    }
}
