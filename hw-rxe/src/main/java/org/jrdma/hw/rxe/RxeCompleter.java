package org.jrdma.hw.rxe;

import static org.jrdma.hw.rxe.RxeParams.psnAdd;
import static org.jrdma.hw.rxe.RxeParams.psnCompare;

import org.jrdma.hw.rxe.wire.Aeth;
import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.sw.rdmavt.MemError;
import org.jrdma.sw.rdmavt.Segments;
import org.jrdma.sw.rdmavt.Timers;
import org.jrdma.sw.rdmavt.WrOpcodeTable;

import io.netty.buffer.ByteBuf;

/**
 * The completer ({@code rxe_comp.c}): matches ACKs, NAKs, read responses and atomic ACKs against the
 * send queue, completes WQEs in order, and drives retransmission (timeout, PSN sequence NAK) and RNR
 * waits. Engine thread only.
 */
final class RxeCompleter {
    enum State {
        GET_ACK, GET_WQE, CHECK_PSN, CHECK_ACK, READ, PROBE_READ_ANSWER, ATOMIC, WRITE_SEND, COMP_ACK, COMP_WQE,
        UPDATE_COMP, ERROR_RETRY, RNR_RETRY, ERROR, DONE, EXIT
    }

    private final RxeDevice dev;
    private final RxePacket pkt = new RxePacket();
    private final Segments local = new Segments(33);
    private final WorkCompletion wc = new WorkCompletion();
    private WcStatus error;

    RxeCompleter(RxeDevice dev) {
        this.dev = dev;
    }

    boolean run(RxeQp qp) {
        QpState s = qp.state();
        if (s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
            return false;
        }
        boolean progress = false;
        for (int n = 0; n < 256; n++) {
            ByteBuf b = qp.respPkts.poll();
            try {
                if (b != null && pkt.decode(b) != RxeDecodeStatus.OK) {
                    continue;
                }
                boolean timeout = b == null && qp.timeoutFired;
                if (timeout) {
                    qp.timeoutFired = false;
                }
                progress |= complete(qp, b == null ? null : pkt, timeout);
                if (b != null && qp.probe == RxeProbe.WAIT) {
                    // the probe was answered: resend what is still unacknowledged, now all of it
                    qp.probe = RxeProbe.NONE;
                    qp.needRetry = true;
                }
            } finally {
                pkt.clear();
                if (b != null) {
                    b.release();
                    progress = true;
                }
            }
            if (b == null || qp.state() == QpState.ERR) {
                break;
            }
        }
        return progress;
    }

    /** The state machine of {@code rxe_completer} for one packet (or none). True if a WQE completed. */
    private boolean complete(RxeQp qp, RxePacket p, boolean timeout) {
        boolean done = false;
        State state = State.GET_WQE;
        RxeSendWqe w = null;
        while (true) {
            switch (state) {
                case GET_WQE -> {
                    w = qp.wqe(0);
                    if (w == null || w.state == RxeWqeState.POSTED) {
                        state = State.EXIT;
                    } else if (w.state == RxeWqeState.DONE) {
                        state = State.COMP_WQE;
                    } else if (w.state == RxeWqeState.ERROR) {
                        error = w.status();
                        state = State.ERROR;
                    } else if (p != null) {
                        state = State.CHECK_PSN;
                    } else {
                        state = timeout ? State.ERROR_RETRY : State.EXIT;
                    }
                }
                case CHECK_PSN -> state = checkPsn(qp, p, w);
                case CHECK_ACK -> state = checkAck(qp, p, w);
                case READ -> {
                    if (!copyRead(qp, p, w)) {
                        error = WcStatus.LOC_PROT_ERR;
                        state = State.ERROR;
                    } else if (!p.has(RxeMask.END)) {
                        state = State.UPDATE_COMP;
                    } else {
                        state = p.psn() == w.lastPsn ? State.COMP_ACK : State.PROBE_READ_ANSWER;
                    }
                }
                case PROBE_READ_ANSWER -> {
                    // the one-packet answer (ONLY or LAST) to our probe read from inside the READ: the responder
                    // had stopped (or lost packets) there. The READ goes on from the next PSN: ask for its rest.
                    qp.compPsn = psnAdd(p.psn(), 1);
                    qp.compOpcode = RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.value();
                    qp.readRest = true;
                    qp.needRetry = true;
                    rearm(qp);
                    state = State.DONE;
                }
                case ATOMIC -> {
                    MemError e = local.resolveLocal(dev.keys, qp.pd, w, Access.LOCAL_WRITE);
                    if (e != MemError.NONE) {
                        error = WcStatus.LOC_PROT_ERR;
                        state = State.ERROR;
                    } else {
                        local.putLongScattered(p.atmackOrig());
                        state = State.COMP_ACK;
                    }
                }
                case WRITE_SEND -> state = sentWhole(w) && w.lastPsn == p.psn() ? State.COMP_ACK : State.UPDATE_COMP;
                case COMP_ACK -> {
                    retire(qp, w, WcStatus.SUCCESS);
                    done = true;
                    state = State.UPDATE_COMP;
                }
                case COMP_WQE -> {
                    if (p != null && sentWhole(w) && psnCompare(w.lastPsn, qp.compPsn) >= 0) {
                        qp.compPsn = psnAdd(w.lastPsn, 1);
                        qp.compOpcode = -1;
                    }
                    retire(qp, w, WcStatus.SUCCESS);
                    done = true;
                    state = State.GET_WQE;
                }
                case UPDATE_COMP -> {
                    qp.compOpcode = p.has(RxeMask.END) ? -1 : p.opcodeValue();
                    if (psnCompare(p.psn(), qp.compPsn) >= 0) {
                        qp.compPsn = psnAdd(p.psn(), 1);
                    }
                    rearm(qp);
                    state = State.DONE;
                }
                case ERROR_RETRY -> {
                    w = qp.wqe(0); // a sequence NAK may have completed the WQE we came with
                    state = errorRetry(qp, w, timeout);
                }
                case RNR_RETRY -> {
                    if (qp.compRnrRetry > 0) {
                        if (qp.compRnrRetry != 7) {
                            qp.compRnrRetry--;
                        }
                        qp.waitRnr = true;
                        qp.rnrDeadline = System.nanoTime() + Timers.rnrNakNanos(Aeth.rnrTimer(p.aethSyn()));
                        qp.retransDeadline = 0;
                        state = State.DONE;
                    } else {
                        dev.counters.inc(RxeCounter.RNR_NAK_RETRY_ERR);
                        error = WcStatus.RNR_RETRY_EXC_ERR;
                        state = State.ERROR;
                    }
                }
                case ERROR -> {
                    retire(qp, w, error);
                    qp.retransDeadline = 0;
                    qp.rnrDeadline = 0;
                    qp.toError();
                    return true;
                }
                case DONE, EXIT -> {
                    return done;
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
    }

    private void retire(RxeQp qp, RxeSendWqe w, WcStatus status) {
        boolean underRequester = qp.reqIdx == 0 && resending(w);
        qp.retireSend(w, status, wc);
        qp.headRetired();
        if (underRequester) {
            qp.needRetry = true; // it was mid-way through resending it: re-sync from comp.psn
        }
    }

    /**
     * A SEND or WRITE that went out whole once and is being resent (a retry set it back to POSTED or
     * PROCESSING): an ACK of its last PSN completes it. rxe completes only PENDING WQEs, so an ACK that
     * overtakes the resend (the peer had it all) is taken as progress only, and the WQE waits for the
     * resend to end and a second ACK; a Linux 6.1 requester in the QEMU guest stalled for good in that
     * window (sq-psn below comp.psn, measured). Such an ACK can only cover PSNs sent before.
     */
    private static boolean resending(RxeSendWqe w) {
        return w.started && (w.state == RxeWqeState.PROCESSING || w.state == RxeWqeState.POSTED)
                && !WrOpcodeTable.isReadOrAtomic(w.opcode());
    }

    /** Every packet of the WQE went out at least once: an ACK of its last PSN may complete it. */
    private static boolean sentWhole(RxeSendWqe w) {
        return w.state == RxeWqeState.PENDING || resending(w);
    }

    /** The retransmit timer runs while PSNs are outstanding ({@code reset_retry_timer}). */
    private static void rearm(RxeQp qp) {
        if (qp.timeout() != 0 && psnCompare(qp.reqPsn, qp.compPsn) > 0) {
            qp.retransDeadline = System.nanoTime() + (Timers.ackTimeoutNanos(qp.timeout()) << qp.retryBackoff);
        } else {
            qp.retransDeadline = 0;
        }
    }

    /**
     * A read response for PSNs we already have: the answer to one of our re-reads, which the responder sends
     * behind everything it was still sending (rxe serves its request queue in order). It shows the responder
     * alive and working towards our outstanding PSNs, so it restarts the retransmit timer, within the budget our
     * retries asked for. Without this, every such replay of a READ (megabytes against a slow responder) ran the
     * timer out again, and each timeout asked for yet another copy: `ib_read_bw -a` against Linux rxe in a TCG guest
     * sent 6x its data and never finished (issue 17).
     */
    private static void staleReadResponse(RxeQp qp, RxePacket p) {
        if (qp.staleBudget > 0 && p.has(RxeMask.ACK) && p.has(RxeMask.PAYLOAD)) { // a read response
            qp.staleBudget--;
            rearm(qp);
        }
    }

    /** Starts the stall clock at the first timeout without progress; true once it ran past the limit. */
    private static boolean stalledTooLong(RxeQp qp) {
        long now = System.nanoTime();
        if (qp.stalledSince == 0) {
            qp.stalledSince = now;
            return false;
        }
        return RxeParams.retry7LimitNanos > 0 && now - qp.stalledSince > RxeParams.retry7LimitNanos;
    }

    private static void resetRetryCounters(RxeQp qp) {
        qp.stalledSince = 0;
        qp.compRetryCnt = qp.retryCnt();
        qp.compRnrRetry = qp.rnrRetry();
        qp.startedRetry = false;
        qp.retryBackoff = 0;
    }

    private static State checkPsn(RxeQp qp, RxePacket p, RxeSendWqe w) {
        boolean rdAtomic = WrOpcodeTable.isReadOrAtomic(w.opcode());
        int diff = psnCompare(p.psn(), w.lastPsn);
        if (diff > 0) {
            if (w.state == RxeWqeState.PENDING && rdAtomic) {
                return State.ERROR_RETRY; // implicit NAK: the read or atomic response was lost
            }
            if (sentWhole(w)) {
                resetRetryCounters(qp);
                return State.COMP_WQE;
            }
            return State.DONE;
        }
        diff = psnCompare(p.psn(), qp.compPsn);
        if (diff < 0) {
            if (p.psn() == w.lastPsn) {
                return State.COMP_ACK;
            } else if (p.opcode() == RxeOpcode.RC_ACKNOWLEDGE
                    && (qp.compOpcode == RxeOpcode.RC_RDMA_READ_RESPONSE_FIRST.value()
                            || qp.compOpcode == RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.value())) {
                return State.CHECK_ACK;
            }
            staleReadResponse(qp, p);
            return State.DONE;
        } else if (diff > 0 && rdAtomic) {
            return State.DONE;
        }
        return State.CHECK_ACK;
    }

    private State checkAck(RxeQp qp, RxePacket p, RxeSendWqe w) {
        int mask = p.mask();
        if (qp.compOpcode == -1) {
            if ((mask & RxeMask.START) == 0) {
                return State.DONE; // rxe treats this as fatal; a stray packet here is dropped
            }
        } else if (qp.compOpcode == RxeOpcode.RC_RDMA_READ_RESPONSE_FIRST.value()
                || qp.compOpcode == RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.value()) {
            RxeOpcode o = p.opcode();
            // FIRST or ONLY inside the READ (here at comp.psn: checkPsn) answers a re-read that the responder took as
            // a new READ: the original request was lost, so our probe read (one packet) and the rest after it were
            // new requests there, answered from their own start (rxe: res state new). Dropping them stalled for good.
            if (o != RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE && o != RxeOpcode.RC_RDMA_READ_RESPONSE_LAST
                    && o != RxeOpcode.RC_RDMA_READ_RESPONSE_FIRST && o != RxeOpcode.RC_RDMA_READ_RESPONSE_ONLY
                    && o != RxeOpcode.RC_ACKNOWLEDGE) {
                return State.DONE;
            }
        }
        switch (p.opcode()) {
            case RC_RDMA_READ_RESPONSE_FIRST, RC_RDMA_READ_RESPONSE_LAST, RC_RDMA_READ_RESPONSE_ONLY,
                    RC_RDMA_READ_RESPONSE_MIDDLE -> {
                if (p.has(RxeMask.AETH) && Aeth.type(p.aethSyn()) != Aeth.Type.ACK) {
                    error = WcStatus.BAD_RESP_ERR;
                    return State.ERROR;
                }
                if (w.opcode() != WrOpcode.RDMA_READ) {
                    error = WcStatus.FATAL_ERR;
                    return State.ERROR;
                }
                resetRetryCounters(qp);
                return State.READ;
            }
            case RC_ATOMIC_ACKNOWLEDGE -> {
                if (Aeth.type(p.aethSyn()) != Aeth.Type.ACK) {
                    return nak(qp, p);
                }
                if (!WrOpcodeTable.isAtomic(w.opcode())) {
                    error = WcStatus.FATAL_ERR;
                    return State.ERROR;
                }
                resetRetryCounters(qp);
                return State.ATOMIC;
            }
            case RC_ACKNOWLEDGE -> {
                return switch (Aeth.type(p.aethSyn())) {
                    case ACK -> {
                        resetRetryCounters(qp);
                        yield State.WRITE_SEND;
                    }
                    case RNR_NAK -> {
                        dev.counters.inc(RxeCounter.RCVD_RNR_ERR);
                        yield State.RNR_RETRY;
                    }
                    default -> nak(qp, p);
                };
            }
            default -> {
                error = WcStatus.FATAL_ERR;
                return State.ERROR;
            }
        }
    }

    private State nak(RxeQp qp, RxePacket p) {
        int syn = p.aethSyn();
        switch (syn) {
            case Aeth.NAK_PSN_SEQ_ERROR -> {
                // Counted whenever it gets here (stale NAKs, before comp.psn, stop in checkPsn). rxe counts only
                // a NAK past comp.psn, and so misses one at the first PSN of a message: checkPsn has completed
                // the WQEs before it and moved comp.psn up to the NAK's PSN. Every retry is then a counted NAK
                // or a timeout (or a READ's implicit NAK), and completer_retry_err - rcvd_seq_err tells them apart.
                dev.counters.inc(RxeCounter.RCVD_SEQ_ERR);
                // a sequence NAK implicitly acknowledges every PSN before it
                if (psnCompare(p.psn(), qp.compPsn) > 0) {
                    qp.compPsn = p.psn();
                    // complete what the NAK acknowledged; forward progress restores the retry budget (rxe
                    // resets it only on ACKs: with retry_cnt 7 = infinite there that did not matter)
                    completeAcked(qp);
                    resetRetryCounters(qp);
                }
                return State.ERROR_RETRY;
            }
            case Aeth.NAK_INVALID_REQ -> error = WcStatus.REM_INV_REQ_ERR;
            case Aeth.NAK_REM_ACC_ERR -> error = WcStatus.REM_ACCESS_ERR;
            default -> error = WcStatus.REM_OP_ERR;
        }
        return State.ERROR;
    }

    /** SEND/WRITE WQEs wholly before comp.psn are done. */
    private void completeAcked(RxeQp qp) {
        while (true) {
            RxeSendWqe w = qp.wqe(0);
            if (w == null) {
                return;
            }
            if (w.state == RxeWqeState.DONE) {
                retire(qp, w, WcStatus.SUCCESS);
                continue;
            }
            if (w.state != RxeWqeState.PENDING || WrOpcodeTable.isReadOrAtomic(w.opcode())
                    || psnCompare(w.lastPsn, qp.compPsn) >= 0) {
                return;
            }
            retire(qp, w, WcStatus.SUCCESS);
        }
    }

    private State errorRetry(RxeQp qp, RxeSendWqe w, boolean timeout) {
        if (w == null || w.state == RxeWqeState.POSTED) {
            return State.EXIT;
        }
        if (qp.startedRetry && !timeout) {
            return State.DONE;
        }
        if (timeout && qp.compRetryCnt == 7 && stalledTooLong(qp)) {
            qp.compRetryCnt = 0; // retry_cnt 7 without progress for RETRY7_LIMIT: the peer is gone
        }
        if (qp.compRetryCnt > 0) {
            // rxe_comp.c: retry_cnt 7 never runs out, as rnr_retry 7 (IBTA would give 7 retries). What
            // rdma-core's tools ask for (ibv_rc_pingpong, perftest use 7), and it matters: a peer that
            // stalls longer than 7 ACK timeouts (a loaded VM, measured against the Linux guest) must not
            // kill the connection on one side only while Linux on the other keeps retrying. Unlike rxe, not
            // forever: stalledTooLong ends it after RxeParams.retry7LimitNanos (30 s) without progress.
            if (qp.compRetryCnt != 7) {
                qp.compRetryCnt--;
            }
            // Successive timeouts without progress wait 2x, then 4x the local ACK timeout (the timeout is a
            // lower bound): a peer that is merely slow (the Linux guest under TCG) is not buried under
            // whole-window retransmissions every period, each of which it must ACK packet by packet.
            if (timeout && qp.retryBackoff < 2) {
                qp.retryBackoff++;
            }
            if (psnCompare(qp.reqPsn, qp.compPsn) > 0) {
                dev.counters.inc(RxeCounter.COMPLETER_RETRY_ERR);
                qp.staleBudget = Math.min(qp.staleBudget + ((qp.reqPsn - qp.compPsn) & RxeParams.PSN_MASK),
                        RxeParams.MAX_UNACKED_READ_PSNS);
                qp.needRetry = true;
                qp.probeOnRetry = timeout;
                qp.startedRetry = true;
                // comp.opcode stays: a re-read of the rest of a READ is answered MIDDLE..LAST (rxe's replay)
            }
            rearm(qp);
            return State.DONE;
        }
        dev.counters.inc(RxeCounter.RETRY_EXCEEDED_ERR);
        error = WcStatus.RETRY_EXC_ERR;
        return State.ERROR;
    }

    /** A read response's payload lands in the WQE's SGEs at (psn - first_psn) * mtu. */
    private boolean copyRead(RxeQp qp, RxePacket p, RxeSendWqe w) {
        MemError e = local.resolveLocal(dev.keys, qp.pd, w, Access.LOCAL_WRITE);
        if (e != MemError.NONE) {
            return false;
        }
        long at = (long) ((p.psn() - w.firstPsn) & RxeParams.PSN_MASK) * dev.mtu(qp);
        int len = p.payloadLength();
        if (at + len > local.total()) {
            return false;
        }
        RxeCopy.fromPacket(p.buf(), p.payloadOffset(), local, at, len);
        return true;
    }
}
