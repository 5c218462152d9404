package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.Inet6Address;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * The transmit side of an interface ({@code ipoib_start_xmit} and {@code ipoib_send}): an IPv4 or IPv6 packet is
 * checked, routed (multicast group, broadcast group, on-link neighbour by ARP or ND) and posted; a unicast frame goes
 * over the peer's connection in connected mode, else by datagram along its path. What cannot be sent is a counted drop. Runs on the
 * interface's thread.
 */
final class TxPath {
    private final IpoibNetdev dev;

    TxPath(IpoibNetdev dev) {
        this.dev = dev;
    }

    /** {@code ipoib_start_xmit} for one IP packet. */
    void xmit(byte[] p) {
        int version = p.length == 0 ? 0 : (p[0] & 0xf0) >>> 4;
        if (p.length > dev.mtu()) {
            dev.counters().drop(Drop.TX_OVERSIZE);
        } else if (!(version == 4 && p.length >= Ipv4.MIN_HEADER) && !(version == 6 && p.length >= Ipv6.HEADER)) {
            dev.counters().drop(Drop.TX_NOT_IP);
        } else if (dev.state() != OperState.UP) {
            dev.counters().drop(Drop.TX_CARRIER);
        } else if (version == 4) {
            route(Ipv4.destination(p), p);
        } else {
            route(Ipv6.destination(p), p);
        }
    }

    /** Multicast by its MGID, on-link (a prefix of ours, fe80::/64 with the link-local) by ND; no gateways here. */
    private void route(Inet6Address dst, byte[] p) {
        if (dst.isMulticastAddress()) {
            dev.mcast().send(IpoibMgid.ipv6(dst, dev.pkey()), Encap.IPV6, p);
        } else if (dev.ifAddresses().onLink(dst)) {
            dev.ndisc().table().send(dst, p);
        } else {
            dev.counters().drop(Drop.TX_NO_ROUTE);
        }
    }

    /** Broadcast, multicast, on-link neighbour; anything else has no route (no gateways here). */
    private void route(Inet4Address dst, byte[] p) {
        if (dst.isMulticastAddress()) {
            dev.mcast().send(IpoibMgid.ipv4(dst, dev.pkey()), Encap.IPV4, p);
        } else if (dev.ifAddresses().isBroadcast(dst)) {
            dev.mcast().send(dev.broadcastAddr().gid(), Encap.IPV4, p);
        } else if (dev.ifAddresses().onLink(dst)) {
            dev.arp().table().send(dst, p);
        } else {
            dev.counters().drop(Drop.TX_NO_ROUTE);
        }
    }

    /**
     * A unicast frame to {@code dst}: over its connection in connected mode when it advertises {@code
     * IPOIB_FLAGS_RC} (and has not refused one lately), else by datagram along its path.
     */
    void unicast(HwAddr dst, int ethertype, byte[] payload) {
        IpoibCm c = dev.cm();
        if (c == null || (dst.flags() & HwAddr.FLAGS_RC) == 0 || !c.active().send(dst, ethertype, payload)) {
            dev.paths().send(dst, ethertype, payload);
        }
    }

    /** Posts one UD frame ({@code ipoib_send}); counted as sent once posted. */
    void post(AddressHandle ah, int dqpn, int ethertype, byte[] payload) {
        UdQp ud = dev.ud();
        if (payload.length > dev.linkMtu().mcastMtu()) {
            dev.counters().drop(Drop.TX_OVERSIZE); // connected mode's MTU, but the peer is reached by datagram
        } else if (ud == null || !ud.canSend()) {
            dev.counters().drop(ud == null ? Drop.TX_CARRIER : Drop.TX_RING_FULL);
        } else {
            try {
                ud.send(ah, dqpn, dev.qkey(), ethertype, payload);
                dev.counters().sent(Encap.LEN + payload.length);
            } catch (RuntimeException e) {
                dev.counters().txErrors.increment();
            }
        }
    }
}
