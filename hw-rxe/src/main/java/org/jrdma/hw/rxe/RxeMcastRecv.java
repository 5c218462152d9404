package org.jrdma.hw.rxe;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.Gid;
import org.jrdma.sw.rdmavt.RvtMcastTable;
import org.jrdma.sw.rdmavt.RvtQp;

import io.netty.buffer.ByteBuf;

/**
 * {@code rxe_rcv_mcast_pkt}: a packet to an IP multicast address goes to every QP attached to the group whose MGID
 * is that address (IPv4 as IPv4-mapped), one copy each (rxe clones the skb per QP), after each QP's own checks
 * (type and state, Q_Key, ICRC). The BTH must carry {@code IB_MULTICAST_QPN}; a packet for a group without members
 * is dropped and counted.
 */
final class RxeMcastRecv {
    private RxeMcastRecv() {
    }

    /** Takes ownership of {@code udpPayload}; never throws. */
    static void rcv(RxeDevice dev, ByteBuf udpPayload, InetAddress src, InetAddress dst, int srcPort) {
        try {
            List<RxeQp> to = members(dev, udpPayload, src, dst, srcPort);
            dev.counters.inc(to.isEmpty() ? RxeCounter.RCVD_DROPPED : RxeCounter.RCVD_PKTS);
            for (RxeQp qp : to) {
                qp.reqPkts.add(udpPayload.copy(), src, dst);
                dev.kick(qp);
            }
        } catch (RuntimeException e) {
            dev.counters.inc(RxeCounter.RCVD_DROPPED);
        } finally {
            udpPayload.release();
        }
    }

    /** The attached QPs that accept the packet; the thread's decoder is cleared again before any QP runs. */
    private static List<RxeQp> members(RxeDevice dev, ByteBuf b, InetAddress src, InetAddress dst, int srcPort) {
        List<RxeQp> to = new ArrayList<>();
        RxePacket p = dev.rxPacket();
        try {
            if (p.decode(b) != RxeDecodeStatus.OK || !dev.isUp()
                    || p.qpn() != RvtMcastTable.MULTICAST_QPN || !p.has(RxeMask.REQ)) {
                return to;
            }
            RvtMcastTable.Group g = dev.mcast.group(Gid.of(dst));
            if (g == null) {
                return to;
            }
            for (RvtQp q : g.qps()) {
                if (q instanceof RxeQp qp && !q.isDestroyed() && dev.accepts(p, qp, src, dst, srcPort)) {
                    to.add(qp);
                }
            }
            return to;
        } finally {
            p.clear();
        }
    }
}
