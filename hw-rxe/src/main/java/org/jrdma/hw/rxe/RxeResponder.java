package org.jrdma.hw.rxe;

import static org.jrdma.hw.rxe.RxeParams.psnAdd;
import static org.jrdma.hw.rxe.RxeParams.psnCompare;

import org.jrdma.hw.rxe.wire.Aeth;
import org.jrdma.hw.rxe.wire.AtomicAckEth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.sw.rdmavt.MemError;
import org.jrdma.sw.rdmavt.RucLoopback;
import org.jrdma.sw.rdmavt.Segments;

import io.netty.buffer.ByteBuf;

/**
 * The responder ({@code rxe_resp.c}): PSN and opcode-sequence checks, receive WQEs, rkey checks, data
 * placement, read replies, atomics with a replay cache, ACK coalescing (ACK only when AckReq is set),
 * NAKs (sequence, RNR, invalid request, remote access, remote operation). Engine thread only.
 */
final class RxeResponder {
    enum State {
        CHK_PSN, CHK_OP_SEQ, CHK_OP_VALID, CHK_RESOURCE, CHK_LENGTH, CHK_RKEY, EXECUTE, READ_REPLY, ATOMIC_REPLY,
        COMPLETE, ACKNOWLEDGE, CLEANUP, DUPLICATE_REQUEST, ERR_PSN_OUT_OF_SEQ, ERR_RNR, ERR_INVALID_REQUEST,
        ERR_LENGTH, ERR_RKEY_VIOLATION, ERR_REMOTE_OP, DROP
    }

    /** Every RDMA atomic of the JVM's rxe devices runs under this lock (ATOMIC_HCA). */
    private static final Object ATOMICS = new Object();

    private final RxeDevice dev;
    private final RxePacket pkt = new RxePacket();
    private final Segments rd = new Segments(2);
    private final WorkCompletion wc = new WorkCompletion();
    /** Scratch for a UD receive's GRH. */
    private final ByteBuf grh = io.netty.buffer.Unpooled.buffer(RxeGrh.BYTES, RxeGrh.BYTES);

    /** What this role sends goes out through {@code xmit} (this thread's transmit step). */
    private final RxeXmit xmit;

    RxeResponder(RxeDevice dev, RxeXmit xmit) {
        this.dev = dev;
        this.xmit = xmit;
    }

    boolean run(RxeQp qp) {
        QpState s = qp.state();
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
            return false;
        }
        boolean progress = false;
        for (int n = 0; n < 256; n++) {
            ByteBuf b = qp.reqPkts.poll();
            if (b == null) {
                break;
            }
            progress = true;
            try {
                if (pkt.decode(b) == RxeDecodeStatus.OK) {
                    process(qp, pkt);
                }
            } finally {
                pkt.clear();
                b.release();
            }
            if (qp.state() == QpState.ERR) {
                break;
            }
        }
        return progress;
    }

    private void process(RxeQp qp, RxePacket p) {
        State state = State.CHK_PSN;
        while (true) {
            switch (state) {
                case CHK_PSN -> state = checkPsn(qp, p);
                case CHK_OP_SEQ -> state = checkOpSeq(qp, p);
                case CHK_OP_VALID -> state = checkOpValid(qp, p);
                case CHK_RESOURCE -> state = checkResource(qp, p);
                case CHK_LENGTH -> state = checkLength(qp, p);
                case CHK_RKEY -> state = checkRkey(qp, p);
                case EXECUTE -> state = execute(qp, p);
                case READ_REPLY -> state = readReply(qp, p);
                case ATOMIC_REPLY -> state = atomicReply(qp, p);
                case COMPLETE -> state = complete(qp, p);
                case ACKNOWLEDGE -> state = acknowledge(qp, p);
                case DUPLICATE_REQUEST -> {
                    duplicate(qp, p);
                    state = State.CLEANUP;
                }
                case ERR_PSN_OUT_OF_SEQ -> {
                    sendAck(qp, Aeth.NAK_PSN_SEQ_ERROR, qp.respPsn);
                    state = State.CLEANUP;
                }
                case ERR_RNR -> {
                    dev.counters.inc(RxeCounter.SEND_RNR_ERR);
                    sendAck(qp, Aeth.rnrNakSyndrome(qp.minRnrTimer()), p.psn());
                    state = State.CLEANUP;
                }
                case ERR_INVALID_REQUEST, ERR_LENGTH -> {
                    // RC: rxe's do_complete errors the WQE in progress whatever packet broke the message
                    if (qp.haveRespWqe && (qp.type == QpType.RC || p.has(RxeMask.SEND) || state == State.ERR_LENGTH)) {
                        completeRecvError(qp, state == State.ERR_LENGTH ? RucLoopback.recvLengthError(qp)
                                : WcStatus.REM_INV_REQ_ERR);
                    }
                    state = classC(qp, p, Aeth.NAK_INVALID_REQ);
                }
                case ERR_RKEY_VIOLATION -> {
                    if (qp.haveRespWqe) {
                        completeRecvError(qp, WcStatus.REM_ACCESS_ERR);
                    }
                    state = classC(qp, p, Aeth.NAK_REM_ACC_ERR);
                }
                case ERR_REMOTE_OP -> {
                    if (qp.haveRespWqe) {
                        completeRecvError(qp, WcStatus.LOC_PROT_ERR);
                    }
                    state = classC(qp, p, Aeth.NAK_REM_OP_ERR);
                }
                case DROP -> {
                    if (qp.type == QpType.UC) {
                        qp.dropMsg = !p.has(RxeMask.END);
                        qp.respOpcode = -1;
                    }
                    return;
                }
                case CLEANUP -> {
                    return;
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
    }

    /**
     * {@code read_reply}'s first pass: counts the READ (rxe does it in execute(), before replying: its responses
     * carry the new MSN), keeps it for a duplicate's replay, sends the responses.
     */
    private State readReply(RxeQp qp, RxePacket p) {
        qp.respMsn = psnAdd(qp.respMsn, 1);
        RxeQp.Replay r = qp.replay();
        int slot = r.readNext;
        r.readNext = (slot + 1) % r.readPsn.length;
        r.readPsn[slot] = p.psn();
        r.readNpsn[slot] = readPackets(qp, rd.total());
        sendReadResponses(qp, p.psn(), rd, rd.total(), false);
        return State.CLEANUP;
    }

    /**
     * {@code atomic_reply}: the atomic on the target (one lock for all QPs, so no two atomics interleave), the
     * original value kept for a duplicate's replay, the atomic ACK.
     */
    private State atomicReply(RxeQp qp, RxePacket p) {
        long orig;
        synchronized (ATOMICS) {
            orig = rd.getLong();
            if (p.opcode() == RxeOpcode.RC_FETCH_ADD) {
                rd.putLong(orig + p.atmethSwapAdd());
            } else if (orig == p.atmethComp()) {
                rd.putLong(p.atmethSwapAdd());
            }
        }
        RxeQp.Replay r = qp.replay();
        int slot = r.atomicNext;
        r.atomicNext = (slot + 1) % r.atomicPsn.length;
        r.atomicPsn[slot] = p.psn();
        r.atomicOrig[slot] = orig;
        r.atomicValid[slot] = true;
        qp.respMsn = psnAdd(qp.respMsn, 1);
        sendAtomicAck(qp, p.psn(), orig);
        return State.CLEANUP;
    }

    /** {@code acknowledge}: RC ACKs a request that asks for it; the others are counted as deferred. */
    private State acknowledge(RxeQp qp, RxePacket p) {
        if (qp.type == QpType.RC) {
            if (p.ackReq()) {
                sendAck(qp, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), p.psn());
            } else {
                dev.counters.inc(RxeCounter.ACK_DEFERRED);
            }
        }
        return State.CLEANUP;
    }

    /** RC: NAK and the QP goes to ERR; UC and UD: the message is dropped. */
    private State classC(RxeQp qp, RxePacket p, int syndrome) {
        if (qp.type != QpType.RC) {
            return State.DROP;
        }
        qp.toError(); // first: whoever sees the NAK's completion finds the responder in ERR already
        sendAck(qp, syndrome, p.psn());
        return State.CLEANUP;
    }

    private State checkPsn(RxeQp qp, RxePacket p) {
        if (qp.isDatagram()) {
            return State.CHK_OP_SEQ;
        }
        int diff = psnCompare(p.psn(), qp.respPsn);
        if (qp.type == QpType.RC) {
            if (diff > 0) {
                if (qp.sentPsnNak) {
                    return State.CLEANUP;
                }
                qp.sentPsnNak = true;
                dev.counters.inc(RxeCounter.OUT_OF_SEQ_REQUEST);
                return State.ERR_PSN_OUT_OF_SEQ;
            } else if (diff < 0) {
                dev.counters.inc(RxeCounter.DUPLICATE_REQUEST);
                return State.DUPLICATE_REQUEST;
            }
            qp.sentPsnNak = false;
            return State.CHK_OP_SEQ;
        }
        // UC: a gap loses the message in progress; a new message may start anywhere
        if (diff != 0) {
            dev.counters.inc(RxeCounter.OUT_OF_SEQ_REQUEST);
            qp.respPsn = p.psn();
            qp.respOpcode = -1;
            qp.respOffset = 0;
            qp.dropMsg = !p.has(RxeMask.START);
        }
        if (qp.dropMsg) {
            if (p.has(RxeMask.START)) {
                qp.dropMsg = false;
            } else {
                qp.respPsn = psnAdd(p.psn(), 1);
                if (p.has(RxeMask.END)) {
                    qp.dropMsg = false;
                }
                return State.CLEANUP;
            }
        }
        return State.CHK_OP_SEQ;
    }

    private static State checkOpSeq(RxeQp qp, RxePacket p) {
        if (qp.isDatagram()) {
            return State.CHK_OP_VALID;
        }
        int prev = qp.respOpcode < 0 ? -1 : qp.respOpcode & 0x1f;
        int cur = p.opcodeValue() & 0x1f;
        boolean ok;
        if (prev == 0x00 || prev == 0x01) {
            ok = cur == 0x01 || cur == 0x02 || cur == 0x03 || cur == 0x16;
        } else if (prev == 0x06 || prev == 0x07) {
            ok = cur == 0x07 || cur == 0x08 || cur == 0x09;
        } else {
            ok = p.has(RxeMask.START);
        }
        if (ok) {
            return State.CHK_OP_VALID;
        }
        if (qp.type == QpType.UC) {
            if (p.has(RxeMask.START)) { // the previous message lost its end: start over
                qp.respOffset = 0;
                return State.CHK_OP_VALID;
            }
            qp.respPsn = psnAdd(p.psn(), 1);
            return State.DROP;
        }
        return State.ERR_INVALID_REQUEST;
    }

    private static State checkOpValid(RxeQp qp, RxePacket p) {
        int acc = qp.accessFlags();
        if (qp.type == QpType.RC) {
            if (p.has(RxeMask.READ) && (acc & Access.REMOTE_READ) == 0
                    || p.has(RxeMask.WRITE) && (acc & Access.REMOTE_WRITE) == 0
                    || p.has(RxeMask.ATOMIC) && (acc & Access.REMOTE_ATOMIC) == 0) {
                return State.ERR_INVALID_REQUEST;
            }
        } else if (qp.type == QpType.UC) {
            if (p.has(RxeMask.WRITE) && (acc & Access.REMOTE_WRITE) == 0) {
                qp.respPsn = psnAdd(p.psn(), 1);
                return State.DROP;
            }
        }
        return State.CHK_RESOURCE;
    }

    private State checkResource(RxeQp qp, RxePacket p) {
        if ((p.mask() & RxeMask.READ_OR_ATOMIC) != 0 && qp.maxDestRdAtomic() == 0) {
            return State.ERR_INVALID_REQUEST; // ERR_TOO_MANY_RDMA_ATM_REQ: no responder resources
        }
        if (p.has(RxeMask.RWR) && !qp.haveRespWqe) {
            if (!qp.takeRecv(qp.respWqe)) {
                if (qp.type == QpType.RC) {
                    return State.ERR_RNR;
                }
                dev.counters.inc(RxeCounter.RCVD_NO_RWQE);
                qp.respPsn = psnAdd(p.psn(), 1);
                return State.DROP;
            }
            qp.haveRespWqe = true;
            if (p.has(RxeMask.SEND)) {
                MemError e = qp.respSegs.resolveRecv(dev.keys, qp.pd, qp.respWqe);
                if (e != MemError.NONE) {
                    return State.ERR_REMOTE_OP;
                }
                if (qp.isDatagram()) {
                    if (qp.respSegs.total() < RxeGrh.BYTES) {
                        return State.ERR_LENGTH;
                    }
                    // rxe_send_data_in: the IP header goes in front of the payload (see RxeGrh)
                    RxeGrh.write(grh, 0, qp.reqPkts.src(), qp.reqPkts.dst(), p.length());
                    RxeCopy.fromPacket(grh, 0, qp.respSegs, 0, RxeGrh.BYTES);
                    qp.respSegs.skip(RxeGrh.BYTES);
                }
                qp.respOffset = 0;
            }
        }
        return State.CHK_LENGTH;
    }

    private State checkLength(RxeQp qp, RxePacket p) {
        int mtu = qp.isDatagram() ? dev.activeMtu.bytes() : dev.mtu(qp);
        int len = p.payloadLength();
        if (len > mtu) {
            return State.ERR_LENGTH;
        }
        if (qp.type == QpType.RC && p.has(RxeMask.PAYLOAD) && !p.has(RxeMask.END) && len != mtu) {
            return State.ERR_LENGTH;
        }
        return State.CHK_RKEY;
    }

    private State checkRkey(RxeQp qp, RxePacket p) {
        if (p.has(RxeMask.WRITE)) {
            if (p.has(RxeMask.RETH)) {
                long len = p.rethLen() & 0xffffffffL;
                MemError e = qp.respSegs.resolveRemote(dev.keys, qp, p.rethVa(), len, p.rethRkey(), Access.REMOTE_WRITE);
                if (e != MemError.NONE) {
                    return rkeyError(qp);
                }
                qp.respOffset = 0;
                qp.respLength = len;
            }
            // rxe check_rkey: a packet before the last carries exactly one MTU, unpadded; the last one
            // exactly what is left of the DMA length, with the pad that length implies
            long resid = qp.respLength - qp.respOffset;
            int len = p.payloadLength();
            boolean fits = resid > dev.mtu(qp) ? len == dev.mtu(qp) && p.pad() == 0
                    : len == resid && p.pad() == ((int) -resid & 3);
            if (!fits) {
                return qp.type == QpType.RC ? State.ERR_LENGTH : State.DROP;
            }
        } else if (p.has(RxeMask.READ)) {
            long len = p.rethLen() & 0xffffffffL;
            if (rd.resolveRemote(dev.keys, qp, p.rethVa(), len, p.rethRkey(), Access.REMOTE_READ) != MemError.NONE) {
                return rkeyError(qp);
            }
        } else if (p.has(RxeMask.ATOMIC)) {
            if ((p.atmethVa() & 7) != 0) {
                return State.ERR_INVALID_REQUEST;
            }
            if (rd.resolveRemote(dev.keys, qp, p.atmethVa(), 8, p.atmethRkey(), Access.REMOTE_ATOMIC) != MemError.NONE) {
                return rkeyError(qp);
            }
        }
        return State.EXECUTE;
    }

    private static State rkeyError(RxeQp qp) {
        if (qp.type == QpType.UC) {
            qp.dropMsg = true;
            return State.DROP;
        }
        return State.ERR_RKEY_VIOLATION;
    }

    private State execute(RxeQp qp, RxePacket p) {
        int len = p.payloadLength();
        if (p.has(RxeMask.SEND)) {
            if (qp.respOffset + len > qp.respSegs.total()) {
                return State.ERR_LENGTH;
            }
            if (p.has(RxeMask.IETH) && !RucLoopback.remoteInvalidateAllowed(qp, p.iethRkey())) {
                return State.ERR_INVALID_REQUEST;
            }
            RxeCopy.fromPacket(p.buf(), p.payloadOffset(), qp.respSegs, qp.respOffset, len);
            qp.respOffset += len;
        } else if (p.has(RxeMask.WRITE)) {
            if (len > 0) {
                RxeCopy.fromPacket(p.buf(), p.payloadOffset(), qp.respSegs, qp.respOffset, len);
            }
            qp.respOffset += len;
        }
        dev.counters.inc(RxeCounter.RDMA_RECVS);
        if (!qp.isDatagram()) {
            if (p.has(RxeMask.READ)) {
                qp.respPsn = psnAdd(p.psn(), readPackets(qp, rd.total()));
            } else {
                qp.respPsn = psnAdd(p.psn(), 1);
            }
            qp.respOpcode = p.opcodeValue();
        }
        if (p.has(RxeMask.READ)) {
            return State.READ_REPLY;
        }
        if (p.has(RxeMask.ATOMIC)) {
            return State.ATOMIC_REPLY;
        }
        if (p.has(RxeMask.END) && (p.mask() & RxeMask.WRITE_OR_SEND) != 0 && !qp.isDatagram()) {
            qp.respMsn = psnAdd(qp.respMsn, 1);
        }
        if (p.has(RxeMask.COMP)) {
            return State.COMPLETE;
        }
        return qp.type == QpType.RC ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    private State complete(RxeQp qp, RxePacket p) {
        boolean datagram = qp.isDatagram();
        int flags = 0;
        WcOpcode op = WcOpcode.RECV;
        wc.clear();
        if (p.has(RxeMask.IMMDT)) {
            flags |= WcFlags.WITH_IMM;
            wc.immData(p.immdt());
            if (p.has(RxeMask.WRITE)) {
                op = WcOpcode.RECV_RDMA_WITH_IMM;
            }
        }
        if (p.has(RxeMask.IETH)) {
            int rkey = p.iethRkey();
            RucLoopback.invalidate(qp, rkey);
            flags |= WcFlags.WITH_INVALIDATE;
            wc.invalidateRkey(rkey);
        }
        long byteLen = p.has(RxeMask.WRITE) ? qp.respLength : qp.respOffset;
        if (datagram) {
            byteLen += RxeGrh.BYTES;
            flags |= WcFlags.GRH;
            wc.srcQp(p.dethSqp()).pkeyIndex(0);
        }
        wc.wrId(qp.respWqe.wrId()).status(WcStatus.SUCCESS).opcode(op).byteLen((int) byteLen).wcFlags(flags)
                .qp(qp.ctx.qp()).qpNum(qp.qpn).portNum(port(qp));
        qp.haveRespWqe = false;
        qp.respOffset = 0;
        qp.rcq.post(wc, p.se());
        return qp.type == QpType.RC ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    private static int port(RxeQp qp) {
        return qp.port() == 0 ? 1 : qp.port();
    }

    private void completeRecvError(RxeQp qp, WcStatus status) {
        wc.clear().wrId(qp.respWqe.wrId()).status(status).opcode(WcOpcode.RECV).qp(qp.ctx.qp()).qpNum(qp.qpn)
                .portNum(port(qp));
        qp.haveRespWqe = false;
        qp.respOffset = 0;
        qp.rcq.post(wc, false);
    }

    private void duplicate(RxeQp qp, RxePacket p) {
        RxeQp.Replay r = qp.replayIfAny();
        if (p.has(RxeMask.SEND) || p.has(RxeMask.WRITE)) {
            // C9-105: acknowledge again. A duplicate that asks for an ACK (the END of a resent message, or
            // a requester's probe) gets the newest PSN, as rxe does; one that does not gets its own PSN.
            // Why: rxe's completer completes a WQE on a second ACK for its last PSN even while its requester
            // is still resending that WQE; the application's next post then wraps rxe's small send ring onto
            // the requester's index, and that QP never sends again (the rc-64k interop stall, NOTES.md).
            int ackPsn = p.ackReq() ? psnAdd(qp.respPsn, -1) : p.psn();
            sendAck(qp, Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), ackPsn);
        } else if (p.has(RxeMask.READ)) {
            // reads are idempotent: execute the request again from its own RETH, if it falls in a READ
            // executed before (rxe's find_resource; none: class D, dropped). A re-read from inside that READ
            // continues it: its responses start with MIDDLE (or LAST), not FIRST, as rxe's replay state does.
            for (int i = 0; r != null && i < r.readPsn.length; i++) {
                int n = r.readNpsn[i];
                if (n > 0 && ((p.psn() - r.readPsn[i]) & RxeParams.PSN_MASK) < n) {
                    long len = p.rethLen() & 0xffffffffL;
                    if (rd.resolveRemote(dev.keys, qp, p.rethVa(), len, p.rethRkey(),
                            Access.REMOTE_READ) == MemError.NONE) {
                        sendReadResponses(qp, p.psn(), rd, len, p.psn() != r.readPsn[i]);
                    }
                    return;
                }
            }
        } else if (p.has(RxeMask.ATOMIC)) {
            for (int i = 0; r != null && i < r.atomicPsn.length; i++) {
                if (r.atomicValid[i] && r.atomicPsn[i] == p.psn()) {
                    sendAtomicAck(qp, p.psn(), r.atomicOrig[i]);
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------- packets out

    private void sendAck(RxeQp qp, int syndrome, int psn) {
        RxeOpcode op = RxeOpcode.RC_ACKNOWLEDGE;
        ByteBuf b = xmit.packet(op, 0);
        Bth.encode(b, 0, op.value(), false, false, 0, 0xffff, qp.destQpn(), false, psn);
        Aeth.encode(b, op.aethOffset(), syndrome, qp.respMsn);
        xmit.sendAck(qp.srcAddr, qp.dstAddr, qp.srcPort, b);
    }

    private void sendAtomicAck(RxeQp qp, int psn, long orig) {
        RxeOpcode op = RxeOpcode.RC_ATOMIC_ACKNOWLEDGE;
        ByteBuf b = xmit.packet(op, 0);
        Bth.encode(b, 0, op.value(), false, false, 0, 0xffff, qp.destQpn(), false, psn);
        Aeth.encode(b, op.aethOffset(), Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), qp.respMsn);
        AtomicAckEth.encode(b, op.atmackOffset(), orig);
        xmit.send(qp.srcAddr, qp.dstAddr, qp.srcPort, b);
    }

    private int readPackets(RxeQp qp, long len) {
        int mtu = dev.mtu(qp);
        return (int) Math.max(1, (len + mtu - 1) / mtu);
    }

    /**
     * {@code read_reply}: the responses of a read of {@code len} bytes of {@code src}, from {@code psn}; a
     * {@code replay} from inside an earlier READ has no FIRST/ONLY (MIDDLE.. LAST).
     */
    private void sendReadResponses(RxeQp qp, int psn, Segments src, long len, boolean replay) {
        int mtu = dev.mtu(qp);
        int pkts = readPackets(qp, len);
        for (int i = 0; i < pkts; i++) {
            int payload = (int) Math.min(mtu, len - (long) i * mtu);
            boolean start = i == 0 && !replay;
            boolean end = i == pkts - 1;
            RxeOpcode op = start ? (end ? RxeOpcode.RC_RDMA_READ_RESPONSE_ONLY : RxeOpcode.RC_RDMA_READ_RESPONSE_FIRST)
                    : end ? RxeOpcode.RC_RDMA_READ_RESPONSE_LAST : RxeOpcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            ByteBuf b = xmit.packet(op, payload);
            Bth.encode(b, 0, op.value(), false, false, org.jrdma.hw.rxe.wire.RxeWire.padFor(payload), 0xffff,
                    qp.destQpn(), false, psnAdd(psn, i));
            if (op.is(RxeMask.AETH)) {
                Aeth.encode(b, op.aethOffset(), Aeth.ackSyndrome(Aeth.ACK_UNLIMITED), qp.respMsn);
            }
            if (payload > 0) {
                RxeCopy.toPacket(src, (long) i * mtu, b, op.length(), payload);
            }
            xmit.send(qp.srcAddr, qp.dstAddr, qp.srcPort, b);
        }
    }
}
