package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.hw.rxe.wire.UdpSourcePort;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.spi.QpContext;
import org.jrdma.sw.rdmavt.RecvWqe;
import org.jrdma.sw.rdmavt.RvtCq;
import org.jrdma.sw.rdmavt.RvtPd;
import org.jrdma.sw.rdmavt.RvtQp;
import org.jrdma.sw.rdmavt.RvtSrq;
import org.jrdma.sw.rdmavt.Segments;

import io.netty.buffer.ByteBuf;

/**
 * An rxe QP: the verbs object of rdmavt plus the protocol state of the three roles ({@code struct
 * rxe_req_info}, {@code rxe_comp_info}, {@code rxe_resp_info}). Everything but the two packet queues and
 * {@link #scheduled} is touched only by the device's engine thread with {@link #exec} held.
 */
public final class RxeQp extends RvtQp {
    final RxeDevice rxe;
    final AtomicBoolean scheduled = new AtomicBoolean();
    final Runnable task;
    /** Request packets for the responder, with their IP addresses (a UD receive gets them in its GRH). */
    final PacketQueue reqPkts = new PacketQueue();
    /** ACKs and responses for the completer. */
    final PacketQueue respPkts = new PacketQueue();
    QpState seenState = QpState.RESET;
    int srcPort;
    /** RC/UC: the peer's address (from the AV's DGID) and ours (its SGID index), set at RTR. */
    /** The addresses a connected QP's packets must come from and go to (check_addr), with the AV they came from. */
    record PeerAddr(org.jrdma.ib.core.AhAttr av, InetAddress peer, InetAddress self) {
    }

    private volatile PeerAddr peerAddr;

    /** check_addr's addresses for the current AV (recomputed when modify_qp set a new one); null without a GRH. */
    PeerAddr peerAddr(RxeDevice rxe) {
        org.jrdma.ib.core.AhAttr av = av();
        PeerAddr a = peerAddr;
        if (a != null && a.av() == av) {
            return a;
        }
        if (av == null || av.grh() == null) {
            return null;
        }
        a = new PeerAddr(av, av.grh().dgid().toInetAddress(), rxe.sourceAddress(av.grh().sgidIndex()));
        peerAddr = a;
        return a;
    }

    java.net.InetAddress dstAddr;
    java.net.InetAddress srcAddr;

    // ---- requester
    int reqPsn;
    /** Index from the SQ head of the next WQE to send. */
    int reqIdx;
    int reqOpcode = -1;
    int pktsSinceAckReq;
    boolean needRetry;
    /** The next retry follows a timeout: it starts with a probe (see RxeRequester.retry). */
    boolean probeOnRetry;
    /** A probe read (one packet of the head READ, see RxeRequester.resendReadHead) was answered: ask for the rest. */
    boolean readRest;
    /** The retry probe's state (see RxeRequester.retry). */
    RxeProbe probe = RxeProbe.NONE;
    boolean waitRnr;
    /** A WQE failed locally ({@code qp->req.state = QP_STATE_ERROR}): nothing more is sent. */
    boolean reqStopped;

    // ---- completer
    int compPsn;
    int compOpcode = -1;
    int compRetryCnt;
    int compRnrRetry;
    boolean startedRetry;
    /** Consecutive ACK timeouts without progress stretch the timer by 1 << this (0..2). */
    int retryBackoff;
    /** When the ACK timeouts without progress began (0: making progress); bounds retry_cnt 7. */
    long stalledSince;
    /**
     * Read responses below comp.psn that may still restart the retransmit timer: the PSNs our retries asked to be
     * sent again (a responder answers a re-read with the whole rest, behind what it is still sending). Bounded so
     * that a peer sending stale responses forever cannot keep the timer from firing.
     */
    int staleBudget;
    boolean timeoutFired;
    long retransDeadline;
    long rnrDeadline;

    // ---- responder
    int respPsn;
    int respOpcode = -1;
    int respMsn;
    boolean sentPsnNak;
    boolean dropMsg;
    final RecvWqe respWqe;
    boolean haveRespWqe;
    final Segments respSegs;
    long respOffset;
    long respLength;
    /** Responder resources for replaying duplicate READs and atomics; null until the QP serves its first. */
    private Replay replay;

    /**
     * Responder resources: PSN and original value of the last atomics (atomic replay cache), first PSN
     * and PSN count of the last executed READs, for duplicate replays.
     */
    static final class Replay {
        final int[] atomicPsn = new int[RxeParams.MAX_RD_ATOMIC_RESOURCES];
        final long[] atomicOrig = new long[RxeParams.MAX_RD_ATOMIC_RESOURCES];
        final boolean[] atomicValid = new boolean[RxeParams.MAX_RD_ATOMIC_RESOURCES];
        int atomicNext;
        final int[] readPsn = new int[RxeParams.MAX_RD_ATOMIC_RESOURCES];
        final int[] readNpsn = new int[RxeParams.MAX_RD_ATOMIC_RESOURCES];
        int readNext;

        void clear() {
            java.util.Arrays.fill(atomicValid, false);
            java.util.Arrays.fill(readNpsn, 0);
        }
    }

    RxeQp(RxeDevice dev, QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
        super(dev, ctx, qpn, pd, a, scq, rcq, srq, RxeSendWqe::new);
        this.rxe = dev;
        this.task = () -> dev.run(this);
        // a receive taken from the RQ or the SRQ has at most their max_sge SGEs, each one segment
        int sge = Math.max(srq != null ? srq.maxSge() : cap().maxRecvSge(), 1);
        this.respWqe = new RecvWqe(sge);
        this.respSegs = new Segments(sge);
    }

    /** The responder resources, made on first use (engine thread, exec held). */
    Replay replay() {
        if (replay == null) {
            replay = new Replay();
        }
        return replay;
    }

    /** The responder resources if the QP has served a READ or atomic, else null. */
    Replay replayIfAny() {
        return replay;
    }

    /** The {@code i}-th queued send WQE from the SQ head, with its engine state, or null. */
    RxeSendWqe wqe(int i) {
        return (RxeSendWqe) sendAt(i);
    }

    /** The head WQE was retired: the requester's index, counted from the head, moves with it. */
    void headRetired() {
        if (reqIdx > 0) {
            reqIdx--;
        }
    }

    /** Brings the engine state in line with a state the ULP (or the engine) set; exec held. */
    void syncState() {
        QpState s = state();
        if (s == seenState) {
            return;
        }
        QpState was = seenState;
        seenState = s;
        switch (s) {
            case RESET, ERR -> resetAll();
            case RTR -> {
                respPsn = rqPsn() & RxeParams.PSN_MASK;
                if (type == QpType.UD || type.isSpecial()) {
                    srcPort = UdpSourcePort.ofQpn(qpn);
                } else {
                    int flow = av() != null && av().grh() != null ? av().grh().flowLabel() : 0;
                    srcPort = UdpSourcePort.ofConnection(flow, qpn, destQpn());
                    if (av() != null && av().grh() != null) {
                        dstAddr = av().grh().dgid().toInetAddress();
                        srcAddr = rxe.sourceAddress(av().grh().sgidIndex());
                    }
                }
            }
            case RTS -> {
                if (was == QpState.RTR || was == QpState.INIT || was == QpState.RESET) {
                    reqPsn = compPsn = sqPsn() & RxeParams.PSN_MASK;
                    compRetryCnt = retryCnt();
                    compRnrRetry = rnrRetry();
                    if (type == QpType.UD || type.isSpecial()) {
                        srcPort = UdpSourcePort.ofQpn(qpn);
                    }
                }
            }
            default -> {
            }
        }
    }

    private void resetAll() {
        releaseQueued();
        for (int i = 0; ; i++) {
            RxeSendWqe w = wqe(i);
            if (w == null) {
                break;
            }
            w.reset();
        }
        reqIdx = 0;
        reqOpcode = -1;
        pktsSinceAckReq = 0;
        needRetry = waitRnr = reqStopped = probeOnRetry = readRest = false;
        probe = RxeProbe.NONE;
        compOpcode = -1;
        startedRetry = timeoutFired = false;
        retryBackoff = 0;
        stalledSince = 0;
        staleBudget = 0;
        retransDeadline = rnrDeadline = 0;
        respOpcode = -1;
        respMsn = 0;
        sentPsnNak = dropMsg = false;
        haveRespWqe = false;
        respOffset = respLength = 0;
        if (replay != null) {
            replay.clear();
        }
    }

    void releaseQueued() {
        ByteBuf b;
        while ((b = reqPkts.poll()) != null) {
            b.release();
        }
        while ((b = respPkts.poll()) != null) {
            b.release();
        }
    }

    boolean isDatagram() {
        return type == QpType.UD || type.isSpecial();
    }
}
