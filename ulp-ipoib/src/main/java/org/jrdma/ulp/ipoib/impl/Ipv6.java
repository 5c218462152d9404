package org.jrdma.ulp.ipoib.impl;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

import org.jrdma.ib.core.Gid;

/**
 * The IPv6 header fields (RFC 8200) an interface reads and writes, the checks {@code ipv6_rcv} makes, and the
 * addresses IPv6 over IPoIB derives: the solicited-node group (RFC 4291 section 2.7.1) and the link-local address
 * from the port GUID ({@code addrconf_ifid_infiniband}).
 */
final class Ipv6 {
    static final int HEADER = 40;
    static final int NEXT_ICMPV6 = 58;
    /** {@code ff02::1}, the all-nodes group every interface joins. */
    static final Inet6Address ALL_NODES = addr(new byte[] {(byte) 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});

    private Ipv6() {
    }

    /**
     * The packet's length (header and payload) if {@code b[off..off+len)} holds a whole IPv6 packet (version 6,
     * payload length within the bytes received), else -1 ({@code ipv6_rcv}'s checks; jumbograms are not taken).
     */
    static int totalLength(byte[] b, int off, int len) {
        if (len < HEADER || (b[off] & 0xf0) != 0x60) {
            return -1;
        }
        int total = HEADER + ((b[off + 4] & 0xff) << 8 | b[off + 5] & 0xff);
        return total > len ? -1 : total;
    }

    static int nextHeader(byte[] p) {
        return p[6] & 0xff;
    }

    static int hopLimit(byte[] p) {
        return p[7] & 0xff;
    }

    static Inet6Address source(byte[] p) {
        return addr(Arrays.copyOfRange(p, 8, 24));
    }

    static Inet6Address destination(byte[] p) {
        return addr(Arrays.copyOfRange(p, 24, 40));
    }

    /** A packet with a 40-byte header (traffic class and flow label 0) and room for {@code payloadLen} bytes. */
    static byte[] packet(InetAddress src, InetAddress dst, int next, int hopLimit, int payloadLen) {
        byte[] p = new byte[HEADER + payloadLen];
        p[0] = 0x60;
        p[4] = (byte) (payloadLen >>> 8);
        p[5] = (byte) payloadLen;
        p[6] = (byte) next;
        p[7] = (byte) hopLimit;
        System.arraycopy(src.getAddress(), 0, p, 8, 16);
        System.arraycopy(dst.getAddress(), 0, p, 24, 16);
        return p;
    }

    /** {@code ff02::1:ffXX:XXXX} with the low 24 bits of {@code a} ({@code addrconf_addr_solict_mult}). */
    static Inet6Address solicitedNode(InetAddress a) {
        byte[] s = new byte[16];
        s[0] = (byte) 0xff;
        s[1] = 2;
        s[11] = 1;
        s[12] = (byte) 0xff;
        System.arraycopy(a.getAddress(), 13, s, 13, 3);
        return addr(s);
    }

    /**
     * {@code fe80::} and the port GUID (the GID's low 64 bits, the hardware address's last 8 bytes) with the
     * universal/local bit set, as Linux's {@code addrconf_ifid_infiniband} ({@code eui[0] |= 2}).
     */
    static Inet6Address linkLocal(Gid gid) {
        byte[] a = new byte[16];
        a[0] = (byte) 0xfe;
        a[1] = (byte) 0x80;
        System.arraycopy(gid.raw(), 8, a, 8, 8);
        a[8] |= 2;
        return addr(a);
    }

    static boolean isUnspecified(InetAddress a) {
        return a.isAnyLocalAddress();
    }

    /** The IPv6 address of 16 bytes. */
    static Inet6Address addr(byte[] b) {
        try {
            return Inet6Address.getByAddress(null, b, -1); // Inet6Address even for ::ffff:a.b.c.d
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // sixteen bytes are always an address
        }
    }
}
