package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ulp.ipoib.IpoibReceiver;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * The receive side of an interface ({@code ipoib_ib_handle_rx_wc} and what the stack does next): the 40-byte GRH
 * room, the 4-byte header, then by EtherType: IPv4 and IPv6 to the receiver, ARP to {@link Arp}, IPv6 Neighbor
 * Solicitations and Advertisements to {@link Ndisc} (never to the receiver: the host's TUN device does no ND). What
 * is short, of an unknown EtherType, a bad ARP or ND packet or an IP packet longer than the bytes received is
 * counted as a drop by reason, never thrown. The slot is posted again in every case.
 */
final class RxPath implements UdQp.Handler {
    private final IpoibNetdev dev;

    RxPath(IpoibNetdev dev) {
        this.dev = dev;
    }

    @Override
    public void received(int slot, WorkCompletion wc, ByteBuffer rx, int off) {
        if (wc.status() == WcStatus.WR_FLUSH_ERR) {
            return; // the QP is going away: nothing to post again
        }
        try {
            if (wc.status() != WcStatus.SUCCESS) {
                dev.counters().rxErrors.increment();
            } else if (!ownLoopback(wc) && dev.isUp()) { // down: Linux's QP would not receive at all
                frame(wc, rx, off);
            }
        } finally {
            dev.ud().postRecv(slot);
        }
    }

    /** A send completion: an error counts as {@code tx_errors} ({@code ipoib_ib_handle_tx_wc}). */
    @Override
    public void sent(WorkCompletion wc) {
        if (wc.status() != WcStatus.SUCCESS && wc.status() != WcStatus.WR_FLUSH_ERR) {
            dev.counters().txErrors.increment();
        }
    }

    /** Our own multicast coming back through the HCA's loopback: dropped silently, as Linux does. */
    private boolean ownLoopback(WorkCompletion wc) {
        return wc.srcQp() == dev.ud().qpn() && wc.slid() == dev.ibDevice().queryPort(dev.port()).lid();
    }

    private void frame(WorkCompletion wc, ByteBuffer rx, int off) {
        boolean mcast = (wc.wcFlags() & WcFlags.GRH) != 0 && (rx.get(off + 24) & 0xff) == 0xff; // GRH DGID[0]
        frame(rx, off + WcFlags.GRH_BYTES, wc.byteLen() - WcFlags.GRH_BYTES, mcast);
    }

    /** One IPoIB frame of {@code len} bytes at {@code off} (header first): UD after the GRH, RC as received. */
    void frame(ByteBuffer rx, int off, int len, boolean mcast) {
        int bodyLen = len - Encap.LEN;
        if (bodyLen < 0) {
            dev.counters().drop(Drop.RX_SHORT);
            return;
        }
        byte[] hdr = new byte[Encap.LEN];
        rx.get(off, hdr);
        byte[] body = new byte[bodyLen];
        rx.get(off + Encap.LEN, body);
        switch (Encap.ethertype(hdr, 0)) {
            case Encap.IPV4 -> ipv4(body, mcast);
            case Encap.ARP -> arp(body, mcast);
            case Encap.IPV6 -> ipv6(body, mcast);
            default -> dev.counters().drop(Drop.RX_BAD_ETHERTYPE);
        }
    }

    private void ipv4(byte[] body, boolean mcast) {
        int total = Ipv4.totalLength(body, 0, body.length);
        if (total < 0) {
            dev.counters().drop(Drop.RX_LENGTH);
            return;
        }
        if (dev.receiver() == null && IcmpEcho.isRequest(body, total) && dev.isLocal(Ipv4.destination(body))) {
            dev.counters().received(Encap.LEN + body.length, mcast);
            dev.txPath().xmit(IcmpEcho.reply(body, total));
            return;
        }
        deliver(body, total, mcast);
    }

    private void ipv6(byte[] body, boolean mcast) {
        int total = Ipv6.totalLength(body, 0, body.length);
        if (total < 0) {
            dev.counters().drop(Drop.RX_LENGTH);
        } else if (NdMessage.is(body, total)) {
            dev.ndisc().received(body, total, mcast);
        } else if (dev.receiver() == null && IcmpEcho.isRequestV6(body, total) && dev.isLocal(Ipv6.destination(body))) {
            dev.counters().received(Encap.LEN + body.length, mcast);
            dev.txPath().xmit(IcmpEcho.replyV6(body, total));
        } else {
            deliver(body, total, mcast);
        }
    }

    private void deliver(byte[] body, int len, boolean mcast) {
        IpoibReceiver r = dev.receiver();
        dev.counters().received(Encap.LEN + body.length, mcast);
        if (r == null) {
            dev.counters().drop(Drop.RX_NO_RECEIVER);
            return;
        }
        try {
            r.receive(dev, ByteBuffer.wrap(body, 0, len).slice());
        } catch (RuntimeException e) {
            System.getLogger("org.jrdma.ulp.ipoib").log(System.Logger.Level.WARNING,
                    dev.name() + ": receiver failed: " + e, e);
        }
    }

    private void arp(byte[] body, boolean mcast) {
        ArpPacket a;
        try {
            a = ArpPacket.decode(body, 0, body.length);
        } catch (ArpPacket.Malformed e) {
            dev.counters().drop(Drop.RX_BAD_ARP);
            return;
        }
        if (a.senderHw().qpn() == HwAddr.MULTICAST_QPN || (a.senderHw().gid().raw()[0] & 0xff) == 0xff) {
            dev.counters().drop(Drop.RX_BAD_ARP); // a group is no neighbour
            return;
        }
        dev.counters().received(Encap.LEN + body.length, mcast);
        dev.arp().received(a);
    }
}
