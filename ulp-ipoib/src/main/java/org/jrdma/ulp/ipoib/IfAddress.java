package org.jrdma.ulp.ipoib;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.jrdma.ib.core.Gid;

/** An address of an interface with its prefix length ({@code inet 10.0.0.1/24}, {@code inet6 fe80::1/64}). */
public record IfAddress(InetAddress address, int prefix) {
    public IfAddress {
        int max = address.getAddress().length * 8;
        if (prefix < 0 || prefix > max) {
            throw new IllegalArgumentException("prefix length " + prefix + " is not in 0.." + max);
        }
    }

    /**
     * {@code A.B.C.D[/PLEN]} or {@code X:X::X[/PLEN]} (RFC 4291 text, no zone) as iproute2 takes them (32 or 128
     * without a length); null if it is not one.
     */
    public static IfAddress parse(String s) {
        String[] p = s.split("/", -1);
        boolean v4 = p[0].matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = p[0].contains(":") && p[0].matches("[0-9a-fA-F:.]+");
        if (p.length > 2 || !v4 && !v6) {
            return null;
        }
        try {
            InetAddress a = InetAddress.getByName(p[0]);
            int max = v4 ? 32 : 128;
            int plen = p.length == 2 ? Integer.parseInt(p[1]) : max;
            boolean family = v4 ? a instanceof Inet4Address : a instanceof Inet6Address;
            return family && plen >= 0 && plen <= max ? new IfAddress(a, plen) : null;
        } catch (UnknownHostException | NumberFormatException e) {
            return null;
        }
    }

    /** The address as iproute2 prints it: dotted quad, or IPv6 with the longest zero run as {@code ::} (RFC 5952). */
    public static String text(InetAddress a) {
        // one home for RFC 5952 (ib-core's GID printing, as inet_ntop): a GID is an IPv6 address
        return a instanceof Inet6Address ? Gid.of(a.getAddress()).toCompressedString() : a.getHostAddress();
    }

    /** Whether {@code other} is on this address's subnet. */
    public boolean onLink(InetAddress other) {
        byte[] a = address.getAddress();
        byte[] b = other.getAddress();
        if (a.length != b.length) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit & 7);
            if ((a[bit >> 3] & mask) != (b[bit >> 3] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code other} is this subnet's directed broadcast (host bits all ones; IPv4 only). */
    public boolean isSubnetBroadcast(InetAddress other) {
        byte[] b = other.getAddress();
        if (b.length != 4 || prefix >= 31 || !onLink(other)) {
            return false;
        }
        for (int bit = prefix; bit < 32; bit++) {
            if ((b[bit >> 3] & (0x80 >>> (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return text(address) + "/" + prefix;
    }
}
