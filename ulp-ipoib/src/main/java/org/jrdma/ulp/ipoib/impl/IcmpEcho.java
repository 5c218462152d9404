package org.jrdma.ulp.ipoib.impl;

/**
 * The one thing of the host's IP stack an interface does itself while no receiver is attached: it answers ICMP
 * echo requests (RFC 792) to its own addresses, as the Linux kernel does, so that {@code ping} works between the
 * interfaces of one container. Options in the IP header are dropped from the reply.
 */
public final class IcmpEcho {
    static final int PROTO_ICMP = 1;
    static final int ECHO_REPLY = 0;
    static final int ECHO_REQUEST = 8;

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
        putChecksum(r, 20, icmpLen, 22);
        putChecksum(r, 0, 20, 10);
        return r;
    }

    /** The Internet checksum (RFC 1071) of {@code b[off..off+len)}, stored at {@code at}. */
    public static void putChecksum(byte[] b, int off, int len, int at) {
        long sum = 0;
        for (int i = 0; i < len; i += 2) {
            sum += (b[off + i] & 0xff) << 8 | (i + 1 < len ? b[off + i + 1] & 0xff : 0);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        int c = (int) ~sum & 0xffff;
        b[at] = (byte) (c >>> 8);
        b[at + 1] = (byte) c;
    }
}
