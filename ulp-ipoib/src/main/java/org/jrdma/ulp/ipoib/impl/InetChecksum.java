package org.jrdma.ulp.ipoib.impl;

/**
 * The Internet checksum (RFC 1071): a ones' complement sum of 16-bit words, folded. IPv4 and ICMP sum their own
 * bytes; ICMPv6 (RFC 4443 section 2.3) adds the IPv6 pseudo-header (addresses, upper-layer length, next header).
 */
public final class InetChecksum {
    private InetChecksum() {
    }

    /** {@code sum} plus the 16-bit words of {@code b[off..off+len)} (an odd last byte padded with zero). */
    static long add(long sum, byte[] b, int off, int len) {
        for (int i = 0; i < len; i += 2) {
            sum += (b[off + i] & 0xff) << 8 | (i + 1 < len ? b[off + i + 1] & 0xff : 0);
        }
        return sum;
    }

    /** The folded, complemented checksum of a sum. */
    static int fold(long sum) {
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (int) ~sum & 0xffff;
    }

    /** The checksum of {@code b[off..off+len)}, stored at {@code at}. */
    public static void put(byte[] b, int off, int len, int at) {
        put16(b, at, fold(add(0, b, off, len)));
    }

    /**
     * The ICMPv6 checksum over the IPv6 packet {@code p} (header at 0) whose upper layer is {@code p[40..len)}: the
     * pseudo-header's addresses (bytes 8..40), length and next header 58, then the message. 0 when a received
     * message's checksum is right (its own checksum field included).
     */
    static int icmpv6(byte[] p, int len) {
        int upper = len - Ipv6.HEADER;
        long sum = add(0, p, 8, 32);
        sum += (upper >>> 16) + (upper & 0xffff) + Ipv6.NEXT_ICMPV6;
        return fold(add(sum, p, Ipv6.HEADER, upper));
    }

    /** Computes and stores the ICMPv6 checksum of {@code p} (its field zeroed first). */
    public static void putIcmpv6(byte[] p, int len) {
        p[Ipv6.HEADER + 2] = 0;
        p[Ipv6.HEADER + 3] = 0;
        put16(p, Ipv6.HEADER + 2, icmpv6(p, len));
    }

    private static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }
}
