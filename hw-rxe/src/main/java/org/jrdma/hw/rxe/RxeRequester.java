package org.jrdma.hw.rxe;

import static org.jrdma.hw.rxe.RxeParams.psnAdd;
import static org.jrdma.hw.rxe.RxeParams.psnCompare;

import java.net.InetAddress;

import org.jrdma.hw.rxe.wire.AtomicEth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Deth;
import org.jrdma.hw.rxe.wire.Ieth;
import org.jrdma.hw.rxe.wire.ImmDt;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.sw.rdmavt.MemError;
import org.jrdma.sw.rdmavt.RucLoopback;
import org.jrdma.sw.rdmavt.Segments;
import org.jrdma.sw.rdmavt.SendWqe;
import org.jrdma.sw.rdmavt.Timers;
import org.jrdma.sw.rdmavt.WrOpcodeTable;

import io.netty.buffer.ByteBuf;

/**
 * The requester ({@code rxe_req.c}): walks the send queue from the next unsent WQE, cuts messages into
 * path-MTU packets, and stops at the PSN window, the rd_atomic limit and fences. Local WQEs run when
 * they reach the head. Engine thread only.
 */
final class RxeRequester {
    private final RxeDevice dev;
    private final Segments local = new Segments(33);
    private final RxeGather gatherer = new RxeGather();

    /** What this role sends goes out through {@code xmit} (this thread's transmit step). */
    private final RxeXmit xmit;

    RxeRequester(RxeDevice dev, RxeXmit xmit) {
        this.dev = dev;
        this.xmit = xmit;
    }

    /** One pass; true if anything was sent or changed. */
    boolean run(RxeQp qp) {
        QpState s = qp.state();
        if (s != QpState.RTS) {
            return false;
        }
        boolean progress = false;
        if (qp.needRetry && !qp.waitRnr) {
            retry(qp);
            qp.needRetry = false;
            qp.probe = qp.probeOnRetry && probeable(qp) ? RxeQp.PROBE_SEND : RxeQp.PROBE_NONE;
            qp.probeOnRetry = false;
            progress = true;
        }
        if (qp.waitRnr || qp.reqStopped) {
            return progress;
        }
        for (int n = 0; n < 64 && !qp.reqStopped && qp.probe != RxeQp.PROBE_WAIT; n++) {
            RxeSendWqe w = qp.wqe(qp.reqIdx);
            if (w == null) {
                break;
            }
            if (w.state != RxeQp.WQE_POSTED && w.state != RxeQp.WQE_PROCESSING) {
                qp.reqIdx++;
                continue;
            }
            WrOpcode op = w.opcode();
            if (op.isLocal()) {
                if (qp.reqIdx != 0) {
                    break; // local operations run at the head, in order
                }
                WcStatus r = RucLoopback.executeLocal(qp, w);
                w.status(r);
                w.state = r == WcStatus.SUCCESS ? RxeQp.WQE_DONE : RxeQp.WQE_ERROR;
                qp.reqIdx++;
                qp.reqStopped = r != WcStatus.SUCCESS;
                progress = true;
                continue;
            }
            if ((w.sendFlags() & SendFlags.FENCE) != 0 && qp.reqIdx != 0 && !w.started) {
                break; // wait_fence
            }
            boolean rdAtomic = WrOpcodeTable.isReadOrAtomic(op);
            if (rdAtomic && !w.started && outstandingRdAtomic(qp) >= Math.max(qp.maxRdAtomic(), 1)) {
                break;
            }
            if (qp.type == QpType.RC
                    && psnCompare(qp.reqPsn, psnAdd(qp.compPsn, RxeParams.MAX_UNACKED_PSNS)) > 0) {
                break; // wait_psn: the completer moves us on
            }
            sendPacket(qp, w);
            progress = true;
        }
        return progress;
    }

    private static int outstandingRdAtomic(RxeQp qp) {
        int n = 0;
        for (int i = 0; i < qp.reqIdx; i++) {
            RxeSendWqe w = qp.wqe(i);
            if (w != null && w.state == RxeQp.WQE_PENDING && WrOpcodeTable.isReadOrAtomic(w.opcode())) {
                n++;
            }
        }
        return n;
    }

    /**
     * After a local ACK timeout the go-back-N retransmission starts with one packet, the oldest
     * unacknowledged, with AckReq, and holds the rest until a response arrives (then the completer
     * re-syncs the requester from what the response acknowledged) or the timer fires again. rxe
     * resends the whole window at once; when the peer was only slow (its ACKs late, not lost), every
     * packet of that window is a duplicate it must ACK one by one: measured against Linux 6.1 rxe in the
     * QEMU guest, those bursts of 64..128 duplicate ACKs fill the guest QP's skb budget and its requester
     * stalls for good. Reads and atomics (whose responses are the data) are resent as before.
     */
    private static boolean probeable(RxeQp qp) {
        SendWqe w = qp.sendAt(0);
        return w != null && qp.type == QpType.RC && !w.opcode().isLocal() && !WrOpcodeTable.isReadOrAtomic(w.opcode());
    }

    /** {@code req_retry}: go back to the oldest unacknowledged PSN. */
    private void retry(RxeQp qp) {
        int mtu = dev.mtu(qp);
        qp.reqIdx = 0;
        qp.reqPsn = qp.compPsn;
        qp.reqOpcode = -1;
        qp.pktsSinceAckReq = 0;
        boolean first = true;
        for (int i = 0; ; i++) {
            RxeSendWqe w = qp.wqe(i);
            if (w == null) {
                break;
            }
            if (w.state == RxeQp.WQE_POSTED) {
                break;
            }
            if (w.state != RxeQp.WQE_PENDING && w.state != RxeQp.WQE_PROCESSING) {
                continue;
            }
            w.offset = 0;
            if (first) {
                first = false;
                int npsn = (qp.compPsn - w.firstPsn) & RxeParams.PSN_MASK;
                if (npsn > 0 && npsn <= ((w.lastPsn - w.firstPsn) & RxeParams.PSN_MASK)) {
                    WrOpcode op = w.opcode();
                    if (op == WrOpcode.RDMA_READ) {
                        w.offset = (int) Math.min((long) npsn * mtu, w.totalLength());
                    } else if (!WrOpcodeTable.isAtomic(op)) {
                        w.offset = (int) Math.min((long) npsn * mtu, w.totalLength());
                        // continue the message: the next packet is a MIDDLE or LAST
                        boolean send = op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM
                                || op == WrOpcode.SEND_WITH_INV;
                        int base = qp.type == QpType.UC ? 0x20 : 0;
                        qp.reqOpcode = base + (send ? RxeOpcode.RC_SEND_MIDDLE.value()
                                : RxeOpcode.RC_RDMA_WRITE_MIDDLE.value());
                    }
                }
            }
            w.state = RxeQp.WQE_POSTED;
        }
    }

    /** {@code next_opcode}. */
    private static RxeOpcode nextOpcode(RxeQp qp, SendWqe w, boolean last) {
        int prev = qp.reqOpcode & 0x1f;
        boolean cont;
        switch (w.opcode()) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> {
                if (qp.isDatagram()) {
                    return w.opcode() == WrOpcode.SEND_WITH_IMM ? RxeOpcode.UD_SEND_ONLY_WITH_IMMEDIATE
                            : RxeOpcode.UD_SEND_ONLY;
                }
                cont = qp.reqOpcode >= 0 && (prev == 0x00 || prev == 0x01);
                boolean uc = qp.type == QpType.UC;
                if (!last) {
                    return cont ? (uc ? RxeOpcode.UC_SEND_MIDDLE : RxeOpcode.RC_SEND_MIDDLE)
                            : (uc ? RxeOpcode.UC_SEND_FIRST : RxeOpcode.RC_SEND_FIRST);
                }
                return switch (w.opcode()) {
                    case SEND_WITH_IMM -> cont
                            ? (uc ? RxeOpcode.UC_SEND_LAST_WITH_IMMEDIATE : RxeOpcode.RC_SEND_LAST_WITH_IMMEDIATE)
                            : (uc ? RxeOpcode.UC_SEND_ONLY_WITH_IMMEDIATE : RxeOpcode.RC_SEND_ONLY_WITH_IMMEDIATE);
                    case SEND_WITH_INV -> cont ? RxeOpcode.RC_SEND_LAST_WITH_INVALIDATE
                            : RxeOpcode.RC_SEND_ONLY_WITH_INVALIDATE;
                    default -> cont ? (uc ? RxeOpcode.UC_SEND_LAST : RxeOpcode.RC_SEND_LAST)
                            : (uc ? RxeOpcode.UC_SEND_ONLY : RxeOpcode.RC_SEND_ONLY);
                };
            }
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                cont = qp.reqOpcode >= 0 && (prev == 0x06 || prev == 0x07);
                boolean uc = qp.type == QpType.UC;
                boolean imm = w.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM;
                if (!last) {
                    return cont ? (uc ? RxeOpcode.UC_RDMA_WRITE_MIDDLE : RxeOpcode.RC_RDMA_WRITE_MIDDLE)
                            : (uc ? RxeOpcode.UC_RDMA_WRITE_FIRST : RxeOpcode.RC_RDMA_WRITE_FIRST);
                }
                if (cont) {
                    return imm ? (uc ? RxeOpcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE
                            : RxeOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE)
                            : (uc ? RxeOpcode.UC_RDMA_WRITE_LAST : RxeOpcode.RC_RDMA_WRITE_LAST);
                }
                return imm ? (uc ? RxeOpcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
                        : RxeOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
                        : (uc ? RxeOpcode.UC_RDMA_WRITE_ONLY : RxeOpcode.RC_RDMA_WRITE_ONLY);
            }
            case RDMA_READ -> {
                return RxeOpcode.RC_RDMA_READ_REQUEST;
            }
            case ATOMIC_CMP_AND_SWP -> {
                return RxeOpcode.RC_COMPARE_SWAP;
            }
            case ATOMIC_FETCH_AND_ADD -> {
                return RxeOpcode.RC_FETCH_ADD;
            }
            default -> throw new IllegalStateException(w.opcode() + " has no packet opcode");
        }
    }

    private void fail(RxeQp qp, RxeSendWqe w, WcStatus status) {
        w.status(status);
        w.state = RxeQp.WQE_ERROR;
        qp.reqIdx++;
        qp.reqStopped = true;
    }

    private void sendPacket(RxeQp qp, RxeSendWqe w) {
        WrOpcode op = w.opcode();
        boolean rdAtomic = WrOpcodeTable.isReadOrAtomic(op);
        int mtu = qp.isDatagram() ? dev.activeMtu.bytes() : dev.mtu(qp);
        // the requester's own memory: checked before anything leaves
        if (!w.isInline()) {
            int need = rdAtomic ? Access.LOCAL_WRITE : 0;
            MemError e = local.resolveLocal(dev.keys, qp.pd, w, need);
            if (e != MemError.NONE) {
                fail(qp, w, WcStatus.LOC_PROT_ERR);
                return;
            }
        }
        InetAddress dst;
        InetAddress src;
        int dqpn;
        if (qp.isDatagram()) {
            AhAttr ah = w.ahAttr();
            if (ah == null || ah.grh() == null) {
                fail(qp, w, WcStatus.LOC_QP_OP_ERR);
                return;
            }
            dst = ah.grh().dgid().toInetAddress();
            src = dev.sourceAddress(ah.grh().sgidIndex());
            dqpn = w.remoteQpn();
        } else {
            if (qp.dstAddr == null) {
                fail(qp, w, WcStatus.LOC_QP_OP_ERR);
                return;
            }
            dst = qp.dstAddr;
            src = qp.srcAddr;
            dqpn = qp.destQpn();
        }
        long total = w.totalLength();
        long resid = total - w.offset;
        int payload = rdAtomic ? 0 : (int) Math.min(resid, mtu);
        boolean last = rdAtomic || resid <= mtu;
        RxeOpcode opc = nextOpcode(qp, w, last);
        int psn = qp.reqPsn;
        boolean ackReq = false;
        if (qp.type == QpType.RC) {
            qp.pktsSinceAckReq++;
            if (qp.probe == RxeQp.PROBE_SEND) {
                qp.probe = RxeQp.PROBE_WAIT;
                ackReq = true;
                qp.pktsSinceAckReq = 0;
            } else if (last || qp.pktsSinceAckReq >= RxeParams.MAX_PKT_PER_ACK) {
                ackReq = true;
                qp.pktsSinceAckReq = 0;
            }
        }
        // a large payload in one direct segment stays in the region: the wire gathers it (RxeGather)
        boolean gather = payload >= RxeGather.MIN_PAYLOAD && RxeGather.ENABLED && !w.isInline() && dev.wire.gathers()
                && gatherer.find(local, w.offset, payload);
        ByteBuf b = gather ? xmit.head(opc, payload) : xmit.packet(opc, payload);
        boolean se = last && (w.sendFlags() & SendFlags.SOLICITED) != 0 && opc.is(RxeMask.COMP);
        Bth.encode(b, 0, opc.value(), se, false, org.jrdma.hw.rxe.wire.RxeWire.padFor(payload), 0xffff, dqpn,
                ackReq, psn);
        if (opc.is(RxeMask.RETH)) {
            Reth.encode(b, opc.rethOffset(), w.remoteAddr() + w.offset, w.rkey(), (int) resid);
        }
        if (opc.is(RxeMask.IMMDT)) {
            ImmDt.encode(b, opc.immdtOffset(), w.immData());
        }
        if (opc.is(RxeMask.IETH)) {
            Ieth.encode(b, opc.iethOffset(), w.invalidateRkey());
        }
        if (opc.is(RxeMask.DETH)) {
            int qkey = w.remoteQkey() < 0 ? qp.qkey() : w.remoteQkey();
            Deth.encode(b, opc.dethOffset(), qkey, qp.qpn);
        }
        if (opc.is(RxeMask.ATMETH)) {
            if (op == WrOpcode.ATOMIC_CMP_AND_SWP) {
                AtomicEth.encode(b, opc.atmethOffset(), w.remoteAddr(), w.rkey(), w.swap(), w.compareAdd());
            } else {
                AtomicEth.encode(b, opc.atmethOffset(), w.remoteAddr(), w.rkey(), w.compareAdd(), 0);
            }
        }
        if (payload > 0 && !gather) {
            if (w.isInline()) {
                RxeCopy.toPacket(w.inlineData(), w.offset, b, opc.length(), payload);
            } else {
                RxeCopy.toPacket(local, w.offset, b, opc.length(), payload);
            }
        }
        if (!w.started) {
            w.started = true;
            w.firstPsn = psn;
            long pkts = WrOpcodeTable.isAtomic(op) ? 1 : Math.max(1, (total + mtu - 1) / mtu);
            w.lastPsn = psnAdd(psn, (int) pkts - 1);
        }
        if (op == WrOpcode.RDMA_READ) {
            long pkts = Math.max(1, (resid + mtu - 1) / mtu);
            qp.reqPsn = psnAdd(psn, (int) pkts);
            w.offset = (int) total;
        } else {
            qp.reqPsn = psnAdd(psn, 1);
            w.offset += payload;
        }
        qp.reqOpcode = opc.value();
        if (last) {
            w.state = qp.type == QpType.RC ? RxeQp.WQE_PENDING : RxeQp.WQE_DONE;
            qp.reqIdx++;
        } else {
            w.state = RxeQp.WQE_PROCESSING;
        }
        if (qp.type == QpType.RC && qp.retransDeadline == 0 && qp.timeout() != 0) {
            qp.retransDeadline = System.nanoTime() + Timers.ackTimeoutNanos(qp.timeout());
        }
        dev.counters.inc(RxeCounter.RDMA_SENDS);
        if (gather) {
            try {
                xmit.sendGathered(src, dst, qp.srcPort, b, opc.length(), gatherer);
            } finally {
                gatherer.clear();
            }
        } else {
            xmit.send(src, dst, qp.srcPort, b);
        }
    }
}
