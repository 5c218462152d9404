package org.jrdma.ulp.ipoib.impl;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * A Neighbor Solicitation (ICMPv6 type 135) or Advertisement (136) of RFC 4861 section 4.3/4.4 in its IPv6
 * packet, with the IPoIB link-layer address option of RFC 4391 (section 9.1): type 1 (source) or 2 (target), length
 * 3 (24 bytes), 2 reserved bytes, the 20-byte hardware address ({@code ndisc_fill_addr_option} with
 * {@code ndisc_addr_option_pad} 2). {@code flags} is the NA's R|S|O byte (0 in an NS); {@code lladdr} may be null.
 */
record NdMessage(int type, int flags, Inet6Address target, HwAddr lladdr) {
    static final int NS = 135;
    static final int NA = 136;
    static final int NA_ROUTER = 0x80;
    static final int NA_SOLICITED = 0x40;
    static final int NA_OVERRIDE = 0x20;
    static final int OPT_SOURCE_LLADDR = 1;
    static final int OPT_TARGET_LLADDR = 2;
    /** The IPoIB option's length in units of 8 bytes. */
    static final int OPT_LLADDR_UNITS = 3;
    static final int OPT_LLADDR_LEN = 8 * OPT_LLADDR_UNITS;
    /** ICMPv6 header, reserved/flags word, target. */
    static final int MIN_LEN = 24;
    /** RFC 4861 section 7.1: a received ND message whose hop limit is not 255 came from off-link. */
    static final int HOP_LIMIT = 255;

    /** Why a received packet is not a valid NS/NA (RFC 4861 section 7.1.1 / 7.1.2). */
    static final class Malformed extends Exception {
        Malformed(String why) {
            super(why, null, false, false);
        }
    }

    /** Whether the checked IPv6 packet {@code p} carries an NS or NA right after its header. */
    static boolean is(byte[] p, int len) {
        return len > Ipv6.HEADER && Ipv6.nextHeader(p) == Ipv6.NEXT_ICMPV6
                && ((p[Ipv6.HEADER] & 0xff) == NS || (p[Ipv6.HEADER] & 0xff) == NA);
    }

    /** The IPv6 packet from {@code src} to {@code dst}: hop limit 255, the option if any, the checksum. */
    byte[] encode(InetAddress src, InetAddress dst) {
        int len = MIN_LEN + (lladdr == null ? 0 : OPT_LLADDR_LEN);
        byte[] p = Ipv6.packet(src, dst, Ipv6.NEXT_ICMPV6, HOP_LIMIT, len);
        int m = Ipv6.HEADER;
        p[m] = (byte) type;
        p[m + 4] = (byte) flags;
        System.arraycopy(target.getAddress(), 0, p, m + 8, 16);
        if (lladdr != null) {
            p[m + 24] = (byte) (type == NS ? OPT_SOURCE_LLADDR : OPT_TARGET_LLADDR);
            p[m + 25] = OPT_LLADDR_UNITS;
            lladdr.encode(p, m + 28);
        }
        InetChecksum.putIcmpv6(p, p.length);
        return p;
    }

    /** The NS/NA in the checked IPv6 packet {@code p} of {@code len} bytes; {@link Malformed} says what is wrong. */
    static NdMessage decode(byte[] p, int len) throws Malformed {
        int m = Ipv6.HEADER;
        if (len - m < MIN_LEN) {
            throw new Malformed("ND message of " + (len - m) + " bytes, needs " + MIN_LEN);
        }
        if (Ipv6.hopLimit(p) != HOP_LIMIT) {
            throw new Malformed("hop limit " + Ipv6.hopLimit(p));
        }
        if (p[m + 1] != 0) {
            throw new Malformed("code " + (p[m + 1] & 0xff));
        }
        if (InetChecksum.icmpv6(p, len) != 0) {
            throw new Malformed("bad ICMPv6 checksum");
        }
        int type = p[m] & 0xff;
        Inet6Address target = Ipv6.addr(Arrays.copyOfRange(p, m + 8, m + 24));
        if (target.isMulticastAddress()) {
            throw new Malformed("multicast target " + target.getHostAddress());
        }
        HwAddr ll = lladdr(p, m + MIN_LEN, len, type == NS ? OPT_SOURCE_LLADDR : OPT_TARGET_LLADDR);
        NdMessage msg = new NdMessage(type, type == NA ? p[m + 4] & 0xe0 : 0, target, ll);
        msg.checkAddresses(Ipv6.source(p), Ipv6.destination(p));
        return msg;
    }

    /** The options from {@code off}: every length above 0 and within the message; the wanted address option. */
    private static HwAddr lladdr(byte[] p, int off, int len, int wanted) throws Malformed {
        HwAddr found = null;
        while (off < len) {
            if (len - off < 2 || p[off + 1] == 0) {
                throw new Malformed("option of length 0 at " + (off - Ipv6.HEADER));
            }
            int optLen = 8 * (p[off + 1] & 0xff);
            if (off + optLen > len) {
                throw new Malformed("option of " + optLen + " bytes past the message's end");
            }
            if ((p[off] & 0xff) == wanted) {
                if (optLen != OPT_LLADDR_LEN) {
                    throw new Malformed("link-layer address option of " + optLen + " bytes, IPoIB's is 24");
                }
                found = HwAddr.decode(p, off + 4);
                if (found.qpn() == HwAddr.MULTICAST_QPN || (found.gid().raw()[0] & 0xff) == 0xff) {
                    throw new Malformed("link-layer address of a group");
                }
            }
            off += optLen;
        }
        return found;
    }

    /**
     * Never from a group; RFC 4861 7.1.1: a DAD probe (from ::) goes to a solicited-node group, without the option;
     * 7.1.2: S only to unicast.
     */
    private void checkAddresses(Inet6Address src, Inet6Address dst) throws Malformed {
        if (src.isMulticastAddress()) {
            throw new Malformed("multicast source " + src.getHostAddress()); // RFC 4291 2.7, ipv6_rcv drops it
        }
        if (type == NS && Ipv6.isUnspecified(src)
                && (lladdr != null || !dst.equals(Ipv6.solicitedNode(dst)) || !dst.isMulticastAddress())) {
            throw new Malformed("NS from :: with a source address option or not to a solicited-node group");
        }
        if (type == NA && dst.isMulticastAddress() && (flags & NA_SOLICITED) != 0) {
            throw new Malformed("solicited NA to a multicast address");
        }
    }
}
