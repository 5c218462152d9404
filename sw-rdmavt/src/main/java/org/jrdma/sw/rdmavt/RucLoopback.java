package org.jrdma.sw.rdmavt;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/**
 * Executes send WQEs by copying straight into the destination QP's memory: Linux's
 * {@code rvt_ruc_loopback()} ("handle UC and RC loopback requests"), extended to UD. No packets,
 * but the IB semantics of the responder and completer: RNR NAK with the responder's timer and
 * {@code rnr_retry} (7 = forever), transport retries with the local ACK timeout when nobody
 * answers, and the class C errors (remote access, invalid request, remote operation) that complete
 * the WQE in error and move both QPs to ERR. UC and UD never hear of a responder's trouble.
 * <p>One instance per engine thread: it owns its scratch objects. Call {@link #step} with the QP's
 * {@code exec} lock held.
 */
public final class RucLoopback {
    /** {@link #step}: nothing to do (queue empty, or QP not in RTS). */
    public static final long IDLE = -1;
    /** {@link #step}: one WQE done; call again. */
    public static final long PROGRESS = 0;

    /** Finds where a WQE goes: the destination QP, on any device of the fabric, or null. */
    public interface Fabric {
        RvtQp destination(RvtQp src, SendWqe wqe);

        /**
         * The QPs a UD WQE to {@link QueuePair#MULTICAST_QPN} reaches (each gets one copy; the sender's own QP only
         * if attached). Default: none.
         */
        default RvtQp[] multicast(RvtQp src, SendWqe wqe) {
            return NO_QPS;
        }

        /** A datagram for {@code dst} dropped for its Q_Key (the port's qkey_viol_cntr). Default: not counted. */
        default void qkeyViolation(RvtQp dst) {
        }

        /** The SLID the receiver of {@code wqe} sees in its completion (default: the sending port's LID). */
        default int slid(RvtQp src, SendWqe wqe) {
            return src.dev.lid(src.port);
        }
    }

    private static final RvtQp[] NO_QPS = new RvtQp[0];

    /** Every RDMA atomic of the JVM runs under this lock: atomic with respect to each other (ATOMIC_HCA). */
    private static final Object ATOMICS = new Object();
    /** A UD receive buffer starts with room for the GRH. */
    private static final int GRH_BYTES = org.jrdma.ib.core.WcFlags.GRH_BYTES;

    private final Fabric fabric;
    private final Segments local;
    private final Segments remote;
    private final Segments inlineSeg = new Segments(1);
    private final RecvWqe recv;
    private final WorkCompletion wc = new WorkCompletion();
    private final RvtGrh grh = new RvtGrh();
    private final Segments grhSeg = new Segments(1);

    public RucLoopback(Fabric fabric, int maxSge) {
        this.fabric = fabric;
        this.local = new Segments(maxSge);
        this.remote = new Segments(maxSge);
        this.recv = new RecvWqe(maxSge);
    }

    /** Outcome of running one WQE at the responder. */
    private enum Resp {
        OK, NO_RESPONSE, RNR, DROPPED, REM_ACCESS, REM_INV_REQ, REM_OP
    }

    /**
     * Runs the WQE at the head of {@code qp}'s send queue.
     *
     * @return {@link #IDLE}, {@link #PROGRESS}, or nanoseconds to wait before the next attempt
     */
    public long step(RvtQp qp) {
        long r = run(qp);
        if (r > 0 && qp.state == QpState.ERR) {
            qp.flush(); // moved to ERR (by a peer's engine) while its head WQE waited: flush now, not after the wait
            return IDLE;
        }
        return r;
    }

    private long run(RvtQp qp) {
        if (qp.state == QpState.ERR) {
            qp.flush(); // whatever toError() left for the engine: never under a running WQE
            return IDLE;
        }
        if (qp.state != QpState.RTS) {
            if (qp.state == QpState.SQD) {
                qp.sqdCheck();
            }
            return IDLE;
        }
        SendWqe w = qp.peekSend();
        if (w == null) {
            return IDLE;
        }
        long now = System.nanoTime();
        if (qp.headNotBeforeNanos != 0 && now - qp.headNotBeforeNanos < 0) {
            return qp.headNotBeforeNanos - now;
        }
        if (qp.headNotBeforeNanos == 0) {
            qp.headRetriesLeft = qp.retryCnt;
            qp.headRnrRetriesLeft = qp.rnrRetry;
        }
        if (w.opcode().isLocal()) {
            return finish(qp, w, local(qp, w));
        }
        // the requester's own memory first: nothing leaves if it is wrong
        if (!w.isInline()) {
            int need = WrOpcodeTable.isReadOrAtomic(w.opcode()) ? Access.LOCAL_WRITE : 0;
            MemError e = local.resolveLocal(qp.dev.keys, qp.pd, w, need);
            if (e != MemError.NONE) {
                return finish(qp, w, WcStatus.LOC_PROT_ERR);
            }
        } else {
            inlineSeg.wrap(ByteBuffer.wrap(w.inline), w.inlineLength());
        }
        if (qp.type == QpType.UD && w.remoteQpn() == QueuePair.MULTICAST_QPN) {
            for (RvtQp d : fabric.multicast(qp, w)) {
                respond(qp, w, d); // one copy each; UD: nobody tells the sender
            }
            return finish(qp, w, WcStatus.SUCCESS);
        }
        RvtQp dst = fabric.destination(qp, w);
        Resp r = respond(qp, w, dst);
        switch (r) {
            case OK, DROPPED:
                return finish(qp, w, WcStatus.SUCCESS);
            case RNR:
                if (qp.headRnrRetriesLeft == 0) {
                    return finish(qp, w, WcStatus.RNR_RETRY_EXC_ERR);
                }
                if (qp.headRnrRetriesLeft != 7) {
                    qp.headRnrRetriesLeft--;
                }
                qp.headNotBeforeNanos = now + Timers.rnrNakNanos(dst.minRnrTimer);
                return qp.headNotBeforeNanos - now;
            case NO_RESPONSE:
                if (qp.type != QpType.RC) {
                    return finish(qp, w, WcStatus.SUCCESS); // UC/UD: nobody tells the sender
                }
                long t = Timers.ackTimeoutNanos(qp.timeout);
                if (t == 0) {
                    t = 100_000_000L; // timeout 0 waits forever: look again every 100 ms
                } else if (qp.headRetriesLeft-- == 0) {
                    return finish(qp, w, WcStatus.RETRY_EXC_ERR);
                }
                qp.headNotBeforeNanos = now + t;
                return t;
            case REM_ACCESS:
                return finish(qp, w, WcStatus.REM_ACCESS_ERR);
            case REM_INV_REQ:
                return finish(qp, w, WcStatus.REM_INV_REQ_ERR);
            default:
                return finish(qp, w, WcStatus.REM_OP_ERR);
        }
    }

    /** Completes the head WQE; an error moves the QP to ERR and flushes the rest. */
    private long finish(RvtQp qp, SendWqe w, WcStatus status) {
        qp.retireSend(w, status, wc);
        if (status != WcStatus.SUCCESS) {
            qp.toError();
        }
        return PROGRESS;
    }

    // ---------------------------------------------------------------- local operations

    /** Runs a local WQE (REG_MR, LOCAL_INV, BIND_MW) for a packet engine; the completion status. */
    public static WcStatus executeLocal(RvtQp qp, SendWqe w) {
        return local(qp, w);
    }

    /**
     * The status of a receive a message did not fit: LOC_LEN_ERR, but REM_INV_REQ_ERR on a UC or UD QP whose
     * receives come from an SRQ (rxe_resp.c RESPST_ERR_LENGTH, class E).
     */
    public static WcStatus recvLengthError(RvtQp dst) {
        return dst.srq != null && dst.type != QpType.RC ? WcStatus.REM_INV_REQ_ERR : WcStatus.LOC_LEN_ERR;
    }

    /**
     * The responder's check of SEND_WITH_INV: may the sender invalidate {@code rkey} at {@code dst}
     * (a valid fast-reg MR of its PD or a type 2 MW bound to it)?
     */
    public static boolean remoteInvalidateAllowed(RvtQp dst, int rkey) {
        RvtMem m = dst.dev.keys.byIndex(rkey);
        return m != null && m.key() == rkey && m.state() == RvtMem.State.VALID
                && (m instanceof RvtMr ? ((RvtMr) m).type == RvtMr.Type.FAST_REG && m.pd() == dst.pd
                        : ((RvtMw) m).type == org.jrdma.ib.core.MwType.TYPE_2 && ((RvtMw) m).qp == dst);
    }

    private static WcStatus local(RvtQp qp, SendWqe w) {
        switch (w.opcode()) {
            case REG_MR: {
                MemError e = w.mr.pd == qp.pd ? w.mr.fastReg(w.key(), w.access()) : MemError.BAD_PD;
                return e == MemError.NONE ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
            }
            case LOCAL_INV:
                return invalidate(qp, w.invalidateRkey()) == MemError.NONE ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
            case BIND_MW: {
                MemError e = w.mw.bind(qp, w.mr, w.bindAddr(), w.bindLength(), w.access(), w.key());
                return e == MemError.NONE ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
            }
            default:
                throw new IllegalStateException(w.opcode() + " is not local");
        }
    }

    /** LOCAL_INV and SEND_WITH_INV: an MR (fast-reg) or a type 2 MW of {@code qp}'s PD. */
    public static MemError invalidate(RvtQp qp, int key) {
        RvtMem m = qp.dev.keys.byIndex(key);
        if (m instanceof RvtMr) {
            return ((RvtMr) m).invalidate(key, qp.pd);
        }
        if (m instanceof RvtMw) {
            return ((RvtMw) m).invalidate(key, qp);
        }
        return MemError.BAD_KEY;
    }

    // ---------------------------------------------------------------- responder

    private static boolean receives(QpState s) {
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
    }

    private Resp respond(RvtQp src, SendWqe w, RvtQp dst) {
        if (dst == null || !receives(dst.state)) {
            return Resp.NO_RESPONSE;
        }
        boolean datagram = src.type == QpType.UD || src.type.isSpecial();
        if (datagram) {
            int qkey = w.remoteQkey() < 0 ? src.qkey : w.remoteQkey(); // high bit set: use the QP's own Q_Key
            if (!(dst.type == QpType.UD || dst.type.isSpecial())) {
                return Resp.DROPPED; // a datagram for a connected QP (rxe: check_type_state)
            }
            if (dst.qkey != qkey) {
                fabric.qkeyViolation(dst); // a silent drop, counted at the receiving port (rxe: check_keys)
                return Resp.DROPPED;
            }
        } else if (dst.type != src.type) {
            return Resp.NO_RESPONSE;
        }
        Resp r = switch (w.opcode()) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> send(src, w, dst, datagram);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> write(src, w, dst);
            case RDMA_READ -> read(w, dst);
            default -> atomic(w, dst);
        };
        if (src.type != QpType.RC && r != Resp.OK && r != Resp.DROPPED) {
            return Resp.DROPPED; // UC and UD: errors stay at the responder
        }
        return r;
    }

    private Segments source(SendWqe w) {
        return w.isInline() ? inlineSeg : local;
    }

    /** Class C error at the responder: it goes to ERR; the requester gets {@code r}. */
    private static Resp responderError(RvtQp dst, Resp r) {
        if (dst.type == QpType.RC) {
            dst.toError();
        }
        return r;
    }

    private Resp send(RvtQp src, SendWqe w, RvtQp dst, boolean datagram) {
        Segments data = source(w);
        long len = data.total();
        if (w.opcode() == WrOpcode.SEND_WITH_INV) {
            RvtMem m = dst.dev.keys.byIndex(w.invalidateRkey());
            boolean ok = m != null && m.key() == w.invalidateRkey() && m.state() == RvtMem.State.VALID
                    && (m instanceof RvtMr ? ((RvtMr) m).type == RvtMr.Type.FAST_REG && m.pd() == dst.pd
                            : ((RvtMw) m).type == org.jrdma.ib.core.MwType.TYPE_2 && ((RvtMw) m).qp == dst);
            if (!ok) {
                return responderError(dst, Resp.REM_INV_REQ);
            }
        }
        if (!dst.takeRecv(recv)) {
            return datagram || dst.type == QpType.UC ? Resp.DROPPED : Resp.RNR;
        }
        MemError e = remote.resolveRecv(dst.dev.keys, dst.pd, recv);
        long room = remote.total() - (datagram ? GRH_BYTES : 0);
        if (e != MemError.NONE) {
            completeRecv(dst, src, w, WcStatus.LOC_PROT_ERR, 0, false);
            return responderError(dst, Resp.REM_OP);
        }
        if (len > room) {
            completeRecv(dst, src, w, recvLengthError(dst), 0, false);
            return datagram ? Resp.DROPPED : responderError(dst, Resp.REM_INV_REQ);
        }
        if (datagram) {
            if (w.ah != null && w.ah.attr.grh() != null) {
                writeGrh(src, w, (int) len);
            }
            skip(remote, GRH_BYTES);
        }
        Segments.copy(data, remote, len);
        if (w.opcode() == WrOpcode.SEND_WITH_INV) {
            invalidate(dst, w.invalidateRkey());
        }
        completeRecv(dst, src, w, WcStatus.SUCCESS, (int) len + (datagram ? GRH_BYTES : 0), datagram);
        return Resp.OK;
    }

    /** The GRH in front of a UD payload whose AV is global (the room is there: checked above). */
    private void writeGrh(RvtQp src, SendWqe w, int len) {
        org.jrdma.ib.core.GlobalRoute g = w.ah.attr.grh();
        org.jrdma.ib.core.Gid sgid = src.dev.queryGid(src.port, g.sgidIndex());
        Segments.copy(grh.fill(g, sgid, len, w.opcode() == WrOpcode.SEND_WITH_IMM, grhSeg), remote, GRH_BYTES);
    }

    /** Drops the first {@code n} bytes of a resolved list (the GRH room of a UD receive). */
    private static void skip(Segments s, int n) {
        int i = 0;
        while (n > 0 && i < s.n) {
            int d = Math.min(n, s.len[i]);
            s.off[i] += d;
            s.len[i] -= d;
            n -= d;
            if (s.len[i] == 0) {
                i++;
            }
        }
        if (i > 0) {
            int k = 0;
            for (int j = i; j < s.n; j++, k++) {
                s.buf[k] = s.buf[j];
                s.off[k] = s.off[j];
                s.len[k] = s.len[j];
            }
            s.n = k;
        }
    }

    private void completeRecv(RvtQp dst, RvtQp src, SendWqe w, WcStatus status, int byteLen, boolean datagram) {
        wc.clear().wrId(recv.wrId).status(status).qp(dst.ctx.qp()).qpNum(dst.qpn).portNum(dst.port);
        if (status == WcStatus.SUCCESS) {
            int flags = 0;
            WcOpcode op = WcOpcode.RECV;
            switch (w.opcode()) {
                case SEND_WITH_IMM -> {
                    flags |= WcFlags.WITH_IMM;
                    wc.immData(w.immData());
                }
                case RDMA_WRITE_WITH_IMM -> {
                    flags |= WcFlags.WITH_IMM;
                    wc.immData(w.immData());
                    op = WcOpcode.RECV_RDMA_WITH_IMM;
                }
                case SEND_WITH_INV -> {
                    flags |= WcFlags.WITH_INVALIDATE;
                    wc.invalidateRkey(w.invalidateRkey());
                }
                default -> {
                }
            }
            if (datagram) {
                wc.srcQp(src.qpn).pkeyIndex(w.pkeyIndex());
                if (w.ah != null && w.ah.attr.grh() != null) {
                    flags |= WcFlags.GRH;
                }
            }
            wc.opcode(op).byteLen(byteLen).wcFlags(flags).slid(fabric.slid(src, w)).sl(w.ah == null ? 0 : w.ah.attr.sl());
        }
        if (status != WcStatus.SUCCESS) {
            wc.opcode(WcOpcode.RECV);
        }
        dst.rcq.post(wc, (w.sendFlags & SendFlags.SOLICITED) != 0);
    }

    private Resp write(RvtQp src, SendWqe w, RvtQp dst) {
        if ((dst.accessFlags & Access.REMOTE_WRITE) == 0) {
            return responderError(dst, Resp.REM_INV_REQ);
        }
        Segments data = source(w);
        long len = data.total();
        if (w.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM && !dst.takeRecv(recv)) {
            return dst.type == QpType.UC ? Resp.DROPPED : Resp.RNR;
        }
        MemError e = remote.resolveRemote(dst.dev.keys, dst, w.remoteAddr, len, w.rkey, Access.REMOTE_WRITE);
        if (e != MemError.NONE) {
            if (w.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM) {
                completeRecv(dst, src, w, WcStatus.REM_ACCESS_ERR, 0, false);
            }
            return responderError(dst, Resp.REM_ACCESS);
        }
        Segments.copy(data, remote, len);
        if (w.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM) {
            completeRecv(dst, src, w, WcStatus.SUCCESS, (int) len, false);
        }
        return Resp.OK;
    }

    private Resp read(SendWqe w, RvtQp dst) {
        if ((dst.accessFlags & Access.REMOTE_READ) == 0 || dst.maxDestRdAtomic == 0) {
            return responderError(dst, Resp.REM_INV_REQ); // no right, or no responder resources
        }
        long len = local.total();
        MemError e = remote.resolveRemote(dst.dev.keys, dst, w.remoteAddr, len, w.rkey, Access.REMOTE_READ);
        if (e != MemError.NONE) {
            return responderError(dst, Resp.REM_ACCESS);
        }
        Segments.copy(remote, local, len);
        return Resp.OK;
    }

    private Resp atomic(SendWqe w, RvtQp dst) {
        if ((dst.accessFlags & Access.REMOTE_ATOMIC) == 0 || dst.maxDestRdAtomic == 0) {
            return responderError(dst, Resp.REM_INV_REQ); // no right, or no responder resources
        }
        MemError e = remote.resolveRemote(dst.dev.keys, dst, w.remoteAddr, 8, w.rkey, Access.REMOTE_ATOMIC);
        if (e != MemError.NONE) {
            return responderError(dst, Resp.REM_ACCESS);
        }
        long orig;
        synchronized (ATOMICS) {
            orig = remote.getLong();
            if (w.opcode() == WrOpcode.ATOMIC_FETCH_AND_ADD) {
                remote.putLong(orig + w.compareAdd);
            } else if (orig == w.compareAdd) {
                remote.putLong(w.swap);
            }
        }
        local.putLongScattered(orig);
        return Resp.OK;
    }
}
