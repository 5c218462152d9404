package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** The few IPv4 header fields (RFC 791) an interface reads: destination, and the checks {@code ip_rcv} makes. */
final class Ipv4 {
    static final int MIN_HEADER = 20;

    private Ipv4() {
    }

    static Inet4Address destination(byte[] p) {
        try {
            return (Inet4Address) InetAddress.getByAddress(Arrays.copyOfRange(p, 16, 20));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /**
     * The packet's total length if {@code b[off..off+len)} holds a whole IPv4 packet (version 4, IHL at least 5,
     * total length within the bytes received and not below the header), else -1 ({@code ip_rcv}'s
     * {@code inhdr_error} / {@code len} checks).
     */
    static int totalLength(byte[] b, int off, int len) {
        if (len < MIN_HEADER || (b[off] & 0xf0) != 0x40) {
            return -1;
        }
        int ihl = (b[off] & 0x0f) * 4;
        int total = (b[off + 2] & 0xff) << 8 | b[off + 3] & 0xff;
        return ihl < MIN_HEADER || total < ihl || total > len ? -1 : total;
    }
}
