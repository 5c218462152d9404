package org.jrdma.ulp.ipoib;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** An address of an interface with its prefix length ({@code inet 10.0.0.1/24}). */
public record IfAddress(InetAddress address, int prefix) {
    public IfAddress {
        int max = address.getAddress().length * 8;
        if (prefix < 0 || prefix > max) {
            throw new IllegalArgumentException("prefix length " + prefix + " is not in 0.." + max);
        }
    }

    /** {@code A.B.C.D[/PLEN]} as iproute2 takes it (32 without a length); null if it is not one. */
    public static IfAddress parse(String s) {
        String[] p = s.split("/", -1);
        if (p.length > 2 || !p[0].matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return null;
        }
        try {
            InetAddress a = InetAddress.getByName(p[0]);
            int plen = p.length == 2 ? Integer.parseInt(p[1]) : 32;
            return a instanceof Inet4Address && plen >= 0 && plen <= 32 ? new IfAddress(a, plen) : null;
        } catch (UnknownHostException | NumberFormatException e) {
            return null;
        }
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
        return address.getHostAddress() + "/" + prefix;
    }
}
