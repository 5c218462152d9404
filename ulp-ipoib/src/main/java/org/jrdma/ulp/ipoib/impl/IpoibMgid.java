package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

import org.jrdma.ib.core.Gid;

/**
 * The MGIDs of RFC 4391 section 4, link-local scope (2) as Linux's default broadcast: for the IPv4 signature 0x401B
 * {@code ff12:401b:PKEY::ffff:ffff} for broadcast, {@code ff12:401b:PKEY::0XXX:XXXX} with the low 28 bits of an
 * IPv4 multicast address (Linux's {@code ip_ib_mc_map}); for the IPv6 signature 0x601B {@code ff12:601b:PKEY:} and
 * the low 80 bits of the IPv6 group ({@code ipv6_ib_mc_map}, the scope taken from the broadcast MGID, not from the
 * IPv6 address). The P_Key goes in with its full-member bit set.
 */
public final class IpoibMgid {
    static final int SCOPE_LINK_LOCAL = 2;
    static final int SIGNATURE_IPV4 = 0x401b;
    static final int SIGNATURE_IPV6 = 0x601b;

    private IpoibMgid() {
    }

    public static Gid broadcast(int pkey) {
        byte[] g = prefix(SIGNATURE_IPV4, pkey);
        g[12] = g[13] = g[14] = g[15] = (byte) 0xff;
        return Gid.of(g);
    }

    /** The group's MGID; IllegalArgumentException if {@code group} is not IPv4 multicast (224.0.0.0/4). */
    public static Gid ipv4(InetAddress group, int pkey) {
        if (!(group instanceof Inet4Address) || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(group.getHostAddress() + " is not an IPv4 multicast address");
        }
        byte[] a = group.getAddress();
        byte[] g = prefix(SIGNATURE_IPV4, pkey);
        g[12] = (byte) (a[0] & 0x0f);
        g[13] = a[1];
        g[14] = a[2];
        g[15] = a[3];
        return Gid.of(g);
    }

    /** The group's MGID; IllegalArgumentException if {@code group} is not IPv6 multicast (ff00::/8). */
    public static Gid ipv6(InetAddress group, int pkey) {
        if (!(group instanceof Inet6Address) || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(group.getHostAddress() + " is not an IPv6 multicast address");
        }
        byte[] g = prefix(SIGNATURE_IPV6, pkey);
        System.arraycopy(group.getAddress(), 6, g, 6, 10);
        return Gid.of(g);
    }

    /** The MGID of an IPv4 or IPv6 multicast group. */
    public static Gid of(InetAddress group, int pkey) {
        return group instanceof Inet6Address ? ipv6(group, pkey) : ipv4(group, pkey);
    }

    private static byte[] prefix(int signature, int pkey) {
        byte[] g = new byte[16];
        g[0] = (byte) 0xff;
        g[1] = (byte) (0x10 | SCOPE_LINK_LOCAL);
        g[2] = (byte) (signature >>> 8);
        g[3] = (byte) signature;
        int full = pkey | 0x8000;
        g[4] = (byte) (full >>> 8);
        g[5] = (byte) full;
        return g;
    }
}
