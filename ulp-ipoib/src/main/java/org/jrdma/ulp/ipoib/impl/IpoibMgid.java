package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.jrdma.ib.core.Gid;

/**
 * The MGIDs of RFC 4391 section 4 for the IPv4 signature 0x401B, link-local scope (2) as Linux's default
 * broadcast: {@code ff12:401b:PKEY::ffff:ffff} for broadcast, {@code ff12:401b:PKEY::0XXX:XXXX} with the low 28 bits
 * of an IPv4 multicast address (Linux's {@code ip_ib_mc_map}). The P_Key goes in with its full-member bit set.
 */
public final class IpoibMgid {
    static final int SCOPE_LINK_LOCAL = 2;

    private IpoibMgid() {
    }

    public static Gid broadcast(int pkey) {
        byte[] g = prefix(pkey);
        g[12] = g[13] = g[14] = g[15] = (byte) 0xff;
        return Gid.of(g);
    }

    /** The group's MGID; IllegalArgumentException if {@code group} is not IPv4 multicast (224.0.0.0/4). */
    public static Gid ipv4(InetAddress group, int pkey) {
        if (!(group instanceof Inet4Address) || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(group.getHostAddress() + " is not an IPv4 multicast address");
        }
        byte[] a = group.getAddress();
        byte[] g = prefix(pkey);
        g[12] = (byte) (a[0] & 0x0f);
        g[13] = a[1];
        g[14] = a[2];
        g[15] = a[3];
        return Gid.of(g);
    }

    private static byte[] prefix(int pkey) {
        byte[] g = new byte[16];
        g[0] = (byte) 0xff;
        g[1] = (byte) (0x10 | SCOPE_LINK_LOCAL);
        g[2] = 0x40;
        g[3] = 0x1b;
        int full = pkey | 0x8000;
        g[4] = (byte) (full >>> 8);
        g[5] = (byte) full;
        return g;
    }
}
