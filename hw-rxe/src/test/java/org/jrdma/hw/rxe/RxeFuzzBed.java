package org.jrdma.hw.rxe;

import java.util.List;

import org.jrdma.hw.rxe.RxeWireBed.Conn;
import org.jrdma.hw.rxe.RxeWireBed.Side;
import org.jrdma.hw.rxe.wire.AtomicEth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Deth;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Live QPs for the receive-path fuzzer: an RC QP with a READ, a SEND and a FETCH_ADD outstanding (so forged ACKs
 * and responses reach a completer with work) and receives posted, a UC and a UD QP with receives posted, each
 * with a 64 KiB MR. A QP the input drove out of RTS (a NAK, a fatal error) is reset and connected again, so the
 * QP table never grows. The fuzz input's first two bytes say how to aim its packet at them ({@link #aim}).
 */
final class RxeFuzzBed implements AutoCloseable {
    static final int PEER_QPN = 0x11;
    static final int PSN = 0x100;
    static final int QKEY = 0x11111111;
    static final int RECVS = 8;
    static final int SENDS = 3;

    final RxeWireBed bed;
    final Side rc;
    final Side uc;
    final Side ud;
    private final List<Side> sides;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    /** QPs moved back to RTS after an input left them in another state. */
    long resets;

    RxeFuzzBed() throws Exception {
        bed = new RxeWireBed("192.0.2.11", "192.0.2.10");
        rc = bed.side(QpType.RC, 65536);
        uc = bed.side(QpType.UC, 65536);
        ud = bed.side(QpType.UD, 65536);
        sides = List.of(rc, uc, ud);
        for (Side s : sides) {
            connect(s);
        }
    }

    private void connect(Side s) {
        if (s.qp.qpType() == QpType.UD) {
            bed.connectUd(s, QKEY);
        } else {
            bed.connect(s, new Conn(PEER_QPN, PSN, 0));
        }
        for (int i = 0; i < RECVS; i++) {
            postRecv(s, i);
        }
        if (s == rc) {
            postSends();
        }
    }

    private void postRecv(Side s, int i) {
        s.qp.postRecv(new RecvWr().wrId(1000 + i).sgList(new Sge(s.mr.iova() + i * 4096L, 4096, s.mr.lkey())));
    }

    /** The requester's work: its packets go to the recording wire, the fuzzer plays the responder. */
    private void postSends() {
        long va = rc.mr.iova();
        int lkey = rc.mr.lkey();
        rc.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(va + 32768, 2048, lkey)).remote(0x7000_0000L, 0x1234));
        rc.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(va + 40960, 64, lkey)));
        rc.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(va + 49152, 8, lkey)).remote(0x7000_1000L, 0x1234).compareAdd(1));
    }

    /**
     * Rewrites the packet after the control bytes as {@code c} says. Bits 0-2: the QP (0/4 RC, 1 UC, 2 UD, 3 QP1,
     * else the BTH's own QPN); 3: PSN = the QP's expected PSN (responder for requests, completer for responses)
     * + {@code delta}; 4: P_Key 0xffff; 6: the UD Q_Key; 7: RETH/AtomicETH aimed into the QP's MR. Bit 5 (no ICRC
     * fix) is the caller's.
     */
    ByteBuf aim(int c, int delta, byte[] pkt) {
        ByteBuf b = Unpooled.wrappedBuffer(pkt);
        RxeOpcode op = pkt.length >= Bth.BYTES ? RxeOpcode.of(Bth.opcode(b, 0)) : null;
        if (op == null || pkt.length < op.length()) {
            return b;
        }
        Side s = switch (c & 7) {
            case 0, 4 -> rc;
            case 1 -> uc;
            case 2 -> ud;
            default -> null;
        };
        if ((c & 7) == 3) {
            Bth.setQpn(b, 0, 1);
        } else if (s != null) {
            Bth.setQpn(b, 0, s.qpn());
        }
        if ((c & 0x08) != 0 && s != null) {
            RxeQp q = (RxeQp) bed.rxe.qp(s.qpn());
            int base = op.is(RxeMask.REQ) ? q.respPsn : q.compPsn;
            Bth.setPsn(b, 0, (base + delta) & Bth.PSN_MASK);
        }
        if ((c & 0x10) != 0) {
            Bth.setPkey(b, 0, 0xffff);
        }
        if ((c & 0x40) != 0 && op.dethOffset() >= 0) {
            Deth.encode(b, op.dethOffset(), QKEY, Deth.sqp(b, op.dethOffset()));
        }
        if ((c & 0x80) != 0 && s != null) {
            intoMr(b, op, s);
        }
        return b;
    }

    private static void intoMr(ByteBuf b, RxeOpcode op, Side s) {
        if (op.rethOffset() >= 0) {
            int o = op.rethOffset();
            Reth.setVa(b, o, s.mr.iova() + (Reth.va(b, o) & 0xffff));
            Reth.setRkey(b, o, s.mr.rkey());
        } else if (op.atmethOffset() >= 0) {
            int o = op.atmethOffset();
            AtomicEth.encode(b, o, s.mr.iova() + (AtomicEth.va(b, o) & 0xffff), s.mr.rkey(),
                    AtomicEth.swapAdd(b, o), AtomicEth.comp(b, o));
        }
    }

    /** Whether the device still holds received packets for any QP (queued, not yet run). */
    boolean queued() {
        for (Side s : sides) {
            RxeQp q = (RxeQp) bed.rxe.qp(s.qpn());
            if (!q.reqPkts.isEmpty() || !q.respPkts.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * After an input: completions drained (receives posted again, the RC QP's three sends once all are done), the
     * recorded packets dropped, and a QP not in RTS reset and connected again.
     */
    void settle() {
        bed.wire.sent.clear();
        for (Side s : sides) {
            if (s.qp.query().state() != QpState.RTS) {
                s.qp.modify(new org.jrdma.ib.core.QpAttr().state(QpState.RESET));
                drain(s);
                connect(s);
                resets++;
            } else {
                drain(s);
            }
        }
    }

    private int sendsDone;

    private void drain(Side s) {
        while (s.cq.poll(wc) == 1) {
            long id = wc[0].wrId();
            boolean live = s.qp.query().state() == QpState.RTS;
            if (id >= 1000 && live) {
                postRecv(s, (int) (id - 1000));
            } else if (id < 1000 && s == rc && ++sendsDone == SENDS && live) {
                sendsDone = 0;
                postSends();
            }
        }
        if (s == rc && s.qp.query().state() == QpState.RESET) {
            sendsDone = 0;
        }
    }

    @Override
    public void close() throws Exception {
        bed.close();
    }
}
