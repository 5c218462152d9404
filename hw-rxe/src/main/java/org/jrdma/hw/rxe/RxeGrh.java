package org.jrdma.hw.rxe;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.jrdma.ib.core.Gid;

import io.netty.buffer.ByteBuf;

/**
 * The 40 bytes a UD or GSI receive gets in front of the payload ({@code union rdma_network_hdr}, as
 * {@code rxe_resp.c} fills it): for RoCEv2 over IPv6 the IPv6 header is the GRH; over IPv4 the first
 * 20 bytes are zero and the IPv4 header follows ({@code roce4grh}). A UD consumer
 * ({@code ib_init_ah_attr_from_wc}) reads the addresses and the hop limit from there.
 *
 * <p>Linux copies the header as received. A UDP socket does not show it, so it is rebuilt from what
 * the receive path knows: the source and destination addresses and the UDP payload length. The rest is
 * what a Linux rxe sender puts there: IPv4 version 4, IHL 5, TOS 0, ID 0 and DF (rxe sends with
 * {@code IP_DF}; with IP_PMTUDISC_DO Linux gives ID 0), TTL 64 ({@code ip4_dst_hoplimit} of a default
 * route), protocol UDP (17), a valid header checksum; IPv6 version 6, traffic class 0, flow label 0,
 * next header UDP (17), hop limit 64. The real TOS/traffic class, TTL/hop limit, ID and flow label of the
 * packet are unknown to us.
 */
final class RxeGrh {
    static final int BYTES = org.jrdma.ib.core.WcFlags.GRH_BYTES;
    static final int IPV4_HDR = 20;
    static final int UDP_HDR = 8;
    static final int IPPROTO_UDP = 17;
    /** TTL / hop limit: the Linux default (sysctl net.ipv4.ip_default_ttl, ipv6 hop_limit). */
    static final int DEFAULT_HOP_LIMIT = 64;
    static final int IP_DF = 0x4000;

    private RxeGrh() {
    }

    /**
     * Writes the 40 bytes for a packet from {@code src} to {@code dst} whose UDP payload (BTH to ICRC)
     * is {@code udpPayload} bytes long into {@code b} at {@code index}.
     */
    static void write(ByteBuf b, int index, InetAddress src, InetAddress dst, int udpPayload) {
        if (src instanceof Inet4Address && dst instanceof Inet4Address) {
            b.setZero(index, BYTES - IPV4_HDR);
            int h = index + BYTES - IPV4_HDR;
            b.setByte(h, 0x45); // version 4, IHL 5 words
            b.setByte(h + 1, 0); // TOS
            b.setShort(h + 2, IPV4_HDR + UDP_HDR + udpPayload); // total length
            b.setShort(h + 4, 0); // identification
            b.setShort(h + 6, IP_DF); // flags + fragment offset
            b.setByte(h + 8, DEFAULT_HOP_LIMIT);
            b.setByte(h + 9, IPPROTO_UDP);
            b.setShort(h + 10, 0);
            b.setBytes(h + 12, src.getAddress());
            b.setBytes(h + 16, dst.getAddress());
            b.setShort(h + 10, ipv4Checksum(b, h));
            return;
        }
        // IPv6 (an IPv4 address on one side only cannot happen on one UDP socket; map it like a GID)
        b.setInt(index, 6 << 28); // version 6, traffic class 0, flow label 0
        b.setShort(index + 4, UDP_HDR + udpPayload); // payload length
        b.setByte(index + 6, IPPROTO_UDP); // next header
        b.setByte(index + 7, DEFAULT_HOP_LIMIT);
        b.setBytes(index + 8, Gid.of(src).raw());
        b.setBytes(index + 24, Gid.of(dst).raw());
    }

    /** The one's complement sum of the 10 header words (the checksum word counted as 0). */
    static int ipv4Checksum(ByteBuf b, int h) {
        int sum = 0;
        for (int i = 0; i < IPV4_HDR; i += 2) {
            sum += b.getUnsignedShort(h + i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return ~sum & 0xffff;
    }
}
