package org.jrdma.ulp.ipoib.impl;

/**
 * The one thing of the host's IP stack an interface does itself while no receiver is attached: it answers ICMP
 * echo requests (RFC 792, and ICMPv6's of RFC 4443) to its own addresses, as the Linux kernel does, so that {@code ping} works between the
 * interfaces of one container. Options in the IP header are dropped from the reply.
 */
public final class IcmpEcho {
    static final int PROTO_ICMP = 1;
    static final int ECHO_REPLY = 0;
    static final int ECHO_REQUEST = 8;
    /** ICMPv6 (RFC 4443 section 4). */
    static final int V6_ECHO_REQUEST = 128;
    static final int V6_ECHO_REPLY = 129;
    static final int V6_HOP_LIMIT = 64;

    private IcmpEcho() {
    }

    /** Whether {@code p} (a checked IPv4 packet of {@code len} bytes) is an ICMP echo request. */
    static boolean isRequest(byte[] p, int len) {
        int ihl = (p[0] & 0x0f) * 4;
        return p[9] == PROTO_ICMP && len >= ihl + 8 && p[ihl] == ECHO_REQUEST && p[ihl + 1] == 0;
    }

    /** The echo reply to a request: addresses swapped, TTL 64, type 0, both checksums new. */
    static byte[] reply(byte[] p, int len) {
        int ihl = (p[0] & 0x0f) * 4;
        int icmpLen = len - ihl;
        byte[] r = new byte[20 + icmpLen];
        System.arraycopy(p, 0, r, 0, 12);
        r[0] = 0x45;
        r[2] = (byte) (r.length >>> 8);
        r[3] = (byte) r.length;
        r[8] = 64;
        r[10] = 0;
        r[11] = 0;
        System.arraycopy(p, 16, r, 12, 4);
        System.arraycopy(p, 12, r, 16, 4);
        System.arraycopy(p, ihl, r, 20, icmpLen);
        r[20] = ECHO_REPLY;
        r[22] = 0;
        r[23] = 0;
        InetChecksum.put(r, 20, icmpLen, 22);
        InetChecksum.put(r, 0, 20, 10);
        return r;
    }

    /** Whether the checked IPv6 packet {@code p} is an ICMPv6 echo request (no extension header). */
    static boolean isRequestV6(byte[] p, int len) {
        return Ipv6.nextHeader(p) == Ipv6.NEXT_ICMPV6 && len >= Ipv6.HEADER + 8
                && (p[Ipv6.HEADER] & 0xff) == V6_ECHO_REQUEST && p[Ipv6.HEADER + 1] == 0;
    }

    /** The ICMPv6 echo reply: addresses swapped, hop limit 64, type 129, the checksum new. */
    static byte[] replyV6(byte[] p, int len) {
        byte[] r = Ipv6.packet(Ipv6.destination(p), Ipv6.source(p), Ipv6.NEXT_ICMPV6, V6_HOP_LIMIT,
                len - Ipv6.HEADER);
        System.arraycopy(p, Ipv6.HEADER, r, Ipv6.HEADER, len - Ipv6.HEADER);
        r[Ipv6.HEADER] = (byte) V6_ECHO_REPLY;
        InetChecksum.putIcmpv6(r, r.length);
        return r;
    }
}
