package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.sw.rdmavt.RvtMcastTable;
import org.jrdma.sw.rdmavt.RvtQp;

import io.netty.buffer.ByteBuf;

/**
 * The receive path of an {@link RxeDevice} ({@code rxe_recv.c}): {@code rxe_rcv} decodes a UDP payload, finds its
 * QP, makes the QP's checks ({@code check_type_state}, {@code check_keys}, the ICRC) and queues it for the
 * responder (requests) or the completer (ACKs and responses). A packet to an IP multicast address goes the way of
 * {@code rxe_rcv_mcast_pkt}: to every QP attached to the group whose MGID is that address (IPv4 as IPv4-mapped),
 * one copy each (rxe clones the skb per QP), each after its own checks; the BTH must carry
 * {@code IB_MULTICAST_QPN}. Never throws: bad packets are dropped and counted.
 */
final class RxeRecv {
    private final RxeDevice dev;
    volatile RxeDevice.IcrcCheck icrcCheck = RxeDevice.IcrcCheck.EXACT;
    /** The port's bad_pkey_cntr and qkey_viol_cntr (check_keys; saturate at 0xffff). */
    final AtomicInteger badPkeyCntr = new AtomicInteger();
    final AtomicInteger qkeyViolCntr = new AtomicInteger();
    /**
     * Packets whose checks threw (a bug, never bad input: that is a plain drop): still dropped and counted in
     * rcvd_dropped, the first one logged with its stack. The fuzz test asserts it stays 0.
     */
    final java.util.concurrent.atomic.AtomicLong internalErrors = new java.util.concurrent.atomic.AtomicLong();
    private final ThreadLocal<RxePacket> rxPkt = ThreadLocal.withInitial(RxePacket::new);
    private final ThreadLocal<Icrc> rxIcrc = ThreadLocal.withInitial(Icrc::new);

    RxeRecv(RxeDevice dev) {
        this.dev = dev;
    }

    /** {@code rxe_rcv}. Takes ownership of {@code udpPayload}. */
    void rcv(ByteBuf udpPayload, InetAddress src, InetAddress dst, int srcPort) {
        if (dst.isMulticastAddress()) {
            rcvMcast(udpPayload, src, dst, srcPort);
            return;
        }
        try {
            RxeQp qp = check(udpPayload, src, dst, srcPort);
            if (qp == null) {
                dev.counters.inc(RxeCounter.RCVD_DROPPED);
                udpPayload.release();
                return;
            }
            dev.counters.inc(RxeCounter.RCVD_PKTS);
            RxePacket p = rxPkt.get();
            boolean req = p.has(RxeMask.REQ);
            p.clear();
            if (!(req ? qp.reqPkts : qp.respPkts).add(udpPayload, src, dst)) {
                dev.counters.inc(RxeCounter.RCVD_QP_QUEUE_FULL);
                dev.counters.inc(RxeCounter.RCVD_DROPPED);
                udpPayload.release();
            }
            dev.kick(qp);
        } catch (RuntimeException e) {
            dev.counters.inc(RxeCounter.RCVD_DROPPED);
            internalError(e);
            if (udpPayload.refCnt() > 0) {
                udpPayload.release();
            }
        }
    }

    private RxeQp check(ByteBuf b, InetAddress src, InetAddress dst, int srcPort) {
        RxePacket p = rxPkt.get();
        if (p.decode(b) != RxeDecodeStatus.OK || !dev.isUp()) {
            return null;
        }
        if (!dev.ownsAddress(dst)) {
            return null;
        }
        RvtQp q = p.qpn() == 1 ? dev.specialQp(QpType.GSI, 1) : p.qpn() == 0 ? null : dev.qp(p.qpn());
        if (!(q instanceof RxeQp) || q.isDestroyed()) {
            return null;
        }
        RxeQp qp = (RxeQp) q;
        return accepts(p, qp, src, dst, srcPort) ? qp : null;
    }

    /** The packet {@code p} (decoded) may go to {@code qp}: {@code check_type_state}, {@code check_keys}, the ICRC. */
    private boolean accepts(RxePacket p, RxeQp qp, InetAddress src, InetAddress dst, int srcPort) {
        // check_type_state
        RxeOpcode.Transport t = p.opcode().transport();
        QpType type = qp.type;
        boolean typeOk = switch (t) {
            case RC -> type == QpType.RC;
            case UC -> type == QpType.UC;
            case UD -> type == QpType.UD || type == QpType.GSI;
            default -> false;
        };
        if (!typeOk) {
            return false;
        }
        if ((type == QpType.RC || type == QpType.UC) && !fromPeer(qp, src, dst)) {
            return false; // check_addr
        }
        QpState s = qp.state();
        if (p.has(RxeMask.REQ)) {
            if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
                return false;
            }
        } else if (s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
            return false;
        }
        // check_keys, after the QP checks as in rxe (a packet for no QP counts no bad P_Key)
        if ((p.pkey() & 0x7fff) != 0x7fff) {
            saturatingInc(badPkeyCntr);
            return false;
        }
        if (p.has(RxeMask.DETH)) {
            int qkey = type == QpType.GSI ? org.jrdma.hw.rxe.wire.RxeWire.GSI_QKEY : qp.qkey();
            if (p.dethQkey() != qkey) {
                saturatingInc(qkeyViolCntr);
                return false;
            }
        }
        if (!icrcCheck.ok(rxIcrc.get(), p, src, dst, srcPort)) {
            dev.counters.inc(RxeCounter.RCVD_ICRC_ERR);
            return false;
        }
        return true;
    }

    /**
     * {@code check_addr}: a connected QP takes packets only from its peer's address (the AV's DGID) to its own
     * (the AV's SGID), else anyone on the network could ACK, NAK or write into its connection.
     */
    private boolean fromPeer(RxeQp qp, InetAddress src, InetAddress dst) {
        RxeQp.PeerAddr a = qp.peerAddr(dev);
        return a != null && a.peer().equals(src) && a.self().equals(dst);
    }

    /** {@code rxe_rcv_mcast_pkt}: a copy to each attached QP that accepts the packet. */
    private void rcvMcast(ByteBuf udpPayload, InetAddress src, InetAddress dst, int srcPort) {
        try {
            List<RxeQp> to = members(udpPayload, src, dst, srcPort);
            dev.counters.inc(to.isEmpty() ? RxeCounter.RCVD_DROPPED : RxeCounter.RCVD_PKTS);
            for (RxeQp qp : to) {
                ByteBuf copy = udpPayload.copy();
                if (!qp.reqPkts.add(copy, src, dst)) {
                    dev.counters.inc(RxeCounter.RCVD_QP_QUEUE_FULL);
                    copy.release();
                }
                dev.kick(qp);
            }
        } catch (RuntimeException e) {
            dev.counters.inc(RxeCounter.RCVD_DROPPED);
            internalError(e);
        } finally {
            udpPayload.release();
        }
    }

    /** The attached QPs that accept the packet; the thread's decoder is cleared again before any QP runs. */
    private List<RxeQp> members(ByteBuf b, InetAddress src, InetAddress dst, int srcPort) {
        List<RxeQp> to = new ArrayList<>();
        RxePacket p = rxPkt.get();
        try {
            if (p.decode(b) != RxeDecodeStatus.OK || !dev.isUp() || p.qpn() != QueuePair.MULTICAST_QPN
                    || !p.has(RxeMask.REQ)) {
                return to;
            }
            RvtMcastTable.Group g = dev.mcast.group(Gid.of(dst));
            if (g == null) {
                return to;
            }
            for (RvtQp q : g.qps()) {
                if (q instanceof RxeQp qp && !q.isDestroyed() && accepts(p, qp, src, dst, srcPort)) {
                    to.add(qp);
                }
            }
            return to;
        } finally {
            p.clear();
        }
    }

    private void internalError(RuntimeException e) {
        if (internalErrors.getAndIncrement() == 0) {
            System.getLogger("org.jrdma.hw.rxe").log(System.Logger.Level.ERROR,
                    "receive checks failed on a packet (dropped; later ones not logged)", e);
        }
    }

    /** The port's 16-bit error counters stop at 0xffff, as the PortInfo fields do. */
    private static void saturatingInc(AtomicInteger c) {
        c.getAndUpdate(v -> Math.min(0xffff, v + 1));
    }
}
