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
            boolean probe = qp.probeOnRetry && !qp.readRest;
            if (!((probe || qp.readRest) && resendReadHead(qp, probe))) {
                retry(qp);
                qp.probe = qp.probeOnRetry && probeable(qp) ? RxeProbe.SEND : RxeProbe.NONE;
            }
            qp.needRetry = false;
            qp.probeOnRetry = false;
            qp.readRest = false;
            progress = true;
        }
        if (qp.waitRnr || qp.reqStopped) {
            return progress;
        }
        for (int n = 0; n < 64 && !qp.reqStopped && qp.probe != RxeProbe.WAIT; n++) {
            RxeSendWqe w = qp.wqe(qp.reqIdx);
            if (w == null) {
                break;
            }
            if (w.state != RxeWqeState.POSTED && w.state != RxeWqeState.PROCESSING) {
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
                w.state = r == WcStatus.SUCCESS ? RxeWqeState.DONE : RxeWqeState.ERROR;
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
            if (w != null && w.state == RxeWqeState.PENDING && WrOpcodeTable.isReadOrAtomic(w.opcode())) {
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

    /**
     * With an RDMA READ at the head, after a local ACK timeout ({@code probe}): asks again for one packet of it, at
     * comp.psn (a probe read); once that is answered ({@code RxeCompleter}'s PROBE_READ_ANSWER), for the rest of it.
     * The READs and other WQEs after it stay as they are. rxe (req_retry) asks again at once for all of every
     * outstanding READ; a responder serves requests in order and answers each re-read with the whole rest, behind
     * what it is still sending. When the timeout was only a stall of a slow responder (the Linux guest under TCG
     * pauses for longer than 67 ms while serving ~15 MB/s), that added the whole backlog again at every stall and
     * the READs never converged; now a stall costs one packet. A READ behind this one whose request was really lost
     * times out once it is the head (or the responder's sequence NAK for the gap resends it at once).
     */
    private boolean resendReadHead(RxeQp qp, boolean probe) {
        RxeSendWqe w = qp.wqe(0);
        if (w == null || w.opcode() != WrOpcode.RDMA_READ || w.state != RxeWqeState.PENDING || !w.started) {
            return false;
        }
        int npsn = (qp.compPsn - w.firstPsn) & RxeParams.PSN_MASK;
        if (npsn > ((w.lastPsn - w.firstPsn) & RxeParams.PSN_MASK)) {
            return false;
        }
        int psn = qp.reqPsn;
        int idx = qp.reqIdx;
        int opcode = qp.reqOpcode;
        int sinceAckReq = qp.pktsSinceAckReq;
        qp.reqPsn = qp.compPsn;
        qp.reqIdx = 0;
        int mtu = dev.mtu(qp);
        w.offset = (int) Math.min((long) npsn * mtu, w.totalLength());
        readLimit = probe ? mtu : 0;
        try {
            sendPacket(qp, w); // the READ request from comp.psn; its first/last PSN stay (w.started)
        } finally {
            readLimit = 0;
        }
        qp.reqPsn = psn;
        qp.reqIdx = Math.max(idx, qp.reqIdx);
        qp.reqOpcode = opcode;
        qp.pktsSinceAckReq = sinceAckReq;
        return true;
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
            if (w.state == RxeWqeState.POSTED) {
                break;
            }
            if (w.state != RxeWqeState.PENDING && w.state != RxeWqeState.PROCESSING) {
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
                        boolean send = (WrOpcodeTable.mask(op) & WrOpcodeTable.WR_SEND_MASK) != 0;
                        int base = qp.type == QpType.UC ? 0x20 : 0;
                        qp.reqOpcode = base + (send ? RxeOpcode.RC_SEND_MIDDLE.value()
                                : RxeOpcode.RC_RDMA_WRITE_MIDDLE.value());
                    }
                }
            }
            w.state = RxeWqeState.POSTED;
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
        w.state = RxeWqeState.ERROR;
        qp.reqIdx++;
        qp.reqStopped = true;
    }

    /**
     * What {@code rxe_req.c} keeps in its {@code struct rxe_pkt_info} and locals while one packet is made: filled by
     * {@link #initPacket}, read by the steps after it. One per requester (per thread), reused: nothing is allocated
     * per packet but the buffer.
     */
    private static final class Pkt {
        InetAddress src;
        InetAddress dst;
        int dqpn;
        RxeOpcode opcode;
        int psn;
        /** Payload bytes in this packet, and bytes of the message left from its start. */
        int payload;
        long resid;
        boolean last;
        boolean ackReq;
        /** The payload stays in the memory region ({@link RxeGather}); {@link #buf} is the head. */
        boolean gather;
        ByteBuf buf;
    }

    private final Pkt pkt = new Pkt();
    /** A probe read's length (one packet), or 0: a READ request asks for the rest of its WQE. */
    private int readLimit;

    /**
     * Sends the next packet of {@code w} ({@code rxe_requester}'s body after the checks): the memory and the
     * address, then {@code init_req_packet}, {@code finish_packet}, {@code update_wqe_psn}, {@code
     * update_wqe_state}, {@code update_state}, and the transmit step. A WQE that fails a check completes in error
     * and stops the requester.
     */
    private void sendPacket(RxeQp qp, RxeSendWqe w) {
        int mtu = qp.isDatagram() ? dev.activeMtu.bytes() : dev.mtu(qp);
        Pkt p = pkt;
        WcStatus bad = checkLocal(qp, w);
        if (bad == WcStatus.SUCCESS) {
            bad = resolveAv(qp, w, p);
        }
        if (bad != WcStatus.SUCCESS) {
            fail(qp, w, bad);
            return;
        }
        initPacket(qp, w, p, mtu);
        finishPacket(w, p);
        updateWqePsn(qp, w, p, mtu);
        updateWqeState(qp, w, p);
        updateState(qp, p);
        dev.counters.inc(RxeCounter.RDMA_SENDS);
        ByteBuf b = p.buf;
        p.buf = null;
        if (p.gather) {
            try {
                xmit.sendGathered(p.src, p.dst, qp.srcPort, b, p.opcode.length(), gatherer);
            } finally {
                gatherer.clear();
            }
        } else {
            xmit.send(p.src, p.dst, qp.srcPort, b);
        }
    }

    /** The requester's own memory: checked before anything leaves ({@code rxe_requester}'s {@code copy_data} errors). */
    private WcStatus checkLocal(RxeQp qp, RxeSendWqe w) {
        if (w.isInline()) {
            return WcStatus.SUCCESS;
        }
        int need = WrOpcodeTable.isReadOrAtomic(w.opcode()) ? Access.LOCAL_WRITE : 0;
        return local.resolveLocal(dev.keys, qp.pd, w, need) == MemError.NONE ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR;
    }

    /** {@code rxe_get_av}: the addresses and destination QP, from the WR's AH (UD) or the QP's path (RC, UC). */
    private WcStatus resolveAv(RxeQp qp, RxeSendWqe w, Pkt p) {
        if (qp.isDatagram()) {
            AhAttr ah = w.ahAttr();
            if (ah == null || ah.grh() == null) {
                return WcStatus.LOC_QP_OP_ERR;
            }
            p.dst = ah.grh().dgid().toInetAddress();
            p.src = dev.sourceAddress(ah.grh().sgidIndex());
            p.dqpn = w.remoteQpn();
        } else {
            if (qp.dstAddr == null) {
                return WcStatus.LOC_QP_OP_ERR;
            }
            p.dst = qp.dstAddr;
            p.src = qp.srcAddr;
            p.dqpn = qp.destQpn();
        }
        return WcStatus.SUCCESS;
    }

    /**
     * {@code init_req_packet}: the packet's opcode, PSN, size and AckReq, its buffer (or the head of a gathered one),
     * and its headers (BTH, RETH, ImmDt, IETH, DETH, AtomicETH).
     */
    private void initPacket(RxeQp qp, RxeSendWqe w, Pkt p, int mtu) {
        WrOpcode op = w.opcode();
        boolean rdAtomic = WrOpcodeTable.isReadOrAtomic(op);
        p.resid = w.totalLength() - w.offset;
        if (readLimit > 0 && op == WrOpcode.RDMA_READ) {
            p.resid = Math.min(p.resid, readLimit);
        }
        p.payload = rdAtomic ? 0 : (int) Math.min(p.resid, mtu);
        p.last = rdAtomic || p.resid <= mtu;
        RxeOpcode opc = nextOpcode(qp, w, p.last);
        p.opcode = opc;
        p.psn = qp.reqPsn;
        p.ackReq = ackReq(qp, p.last);
        // a large payload in one direct segment stays in the region: the wire gathers it (RxeGather)
        p.gather = p.payload >= RxeGather.MIN_PAYLOAD && RxeGather.ENABLED && !w.isInline() && dev.wire.gathers()
                && gatherer.find(local, w.offset, p.payload);
        ByteBuf b = p.gather ? xmit.head(opc, p.payload) : xmit.packet(opc, p.payload);
        p.buf = b;
        boolean se = p.last && (w.sendFlags() & SendFlags.SOLICITED) != 0 && opc.is(RxeMask.COMP);
        Bth.encode(b, 0, opc.value(), se, false, org.jrdma.hw.rxe.wire.RxeWire.padFor(p.payload), 0xffff, p.dqpn,
                p.ackReq, p.psn);
        if (opc.is(RxeMask.RETH)) {
            Reth.encode(b, opc.rethOffset(), w.remoteAddr() + w.offset, w.rkey(), (int) p.resid);
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
    }

    /**
     * RC: whether this packet asks for an ACK: the retry probe, the last packet of a message, and at least every
     * {@link RxeParams#MAX_PKT_PER_ACK} packets.
     */
    private static boolean ackReq(RxeQp qp, boolean last) {
        if (qp.type != QpType.RC) {
            return false;
        }
        qp.pktsSinceAckReq++;
        if (qp.probe == RxeProbe.SEND) {
            qp.probe = RxeProbe.WAIT;
        } else if (!last && qp.pktsSinceAckReq < RxeParams.MAX_PKT_PER_ACK) {
            return false;
        }
        qp.pktsSinceAckReq = 0;
        return true;
    }

    /** {@code finish_packet}: the payload into the packet (a gathered packet's stays in the region). */
    private void finishPacket(RxeSendWqe w, Pkt p) {
        if (p.payload > 0 && !p.gather) {
            if (w.isInline()) {
                RxeCopy.toPacket(w.inlineData(), w.offset, p.buf, p.opcode.length(), p.payload);
            } else {
                RxeCopy.toPacket(local, w.offset, p.buf, p.opcode.length(), p.payload);
            }
        }
    }

    /**
     * {@code update_wqe_psn}: the WQE's first and last PSN when its first packet goes, the requester's next PSN (a
     * READ request covers the PSNs of all its responses) and the bytes sent.
     */
    private static void updateWqePsn(RxeQp qp, RxeSendWqe w, Pkt p, int mtu) {
        WrOpcode op = w.opcode();
        long total = w.totalLength();
        if (!w.started) {
            w.started = true;
            w.firstPsn = p.psn;
            long pkts = WrOpcodeTable.isAtomic(op) ? 1 : Math.max(1, (total + mtu - 1) / mtu);
            w.lastPsn = psnAdd(p.psn, (int) pkts - 1);
        }
        if (op == WrOpcode.RDMA_READ) {
            long pkts = Math.max(1, (p.resid + mtu - 1) / mtu);
            qp.reqPsn = psnAdd(p.psn, (int) pkts);
            w.offset = (int) total;
        } else {
            qp.reqPsn = psnAdd(p.psn, 1);
            w.offset += p.payload;
        }
    }

    /** {@code update_wqe_state}: after its last packet an RC WQE waits for its ACK, others are done. */
    private static void updateWqeState(RxeQp qp, RxeSendWqe w, Pkt p) {
        if (p.last) {
            w.state = qp.type == QpType.RC ? RxeWqeState.PENDING : RxeWqeState.DONE;
            qp.reqIdx++;
        } else {
            w.state = RxeWqeState.PROCESSING;
        }
    }

    /** {@code update_state}: the opcode the next packet continues from, and the retransmit timer (RC). */
    private static void updateState(RxeQp qp, Pkt p) {
        qp.reqOpcode = p.opcode.value();
        if (qp.type == QpType.RC && qp.retransDeadline == 0 && qp.timeout() != 0) {
            qp.retransDeadline = System.nanoTime() + Timers.ackTimeoutNanos(qp.timeout());
        }
    }
}
