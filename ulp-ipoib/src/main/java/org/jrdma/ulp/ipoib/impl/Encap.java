package org.jrdma.ulp.ipoib.impl;

/**
 * The 4-byte IPoIB encapsulation header (RFC 4391 section 6): a 16-bit EtherType and 16 reserved bits (zero on
 * send, ignored on receive), and the EtherTypes this interface knows.
 */
public final class Encap {
    public static final int LEN = 4;
    public static final int IPV4 = 0x0800;
    public static final int ARP = 0x0806;
    public static final int IPV6 = 0x86dd;

    private Encap() {
    }

    public static void write(byte[] b, int off, int ethertype) {
        b[off] = (byte) (ethertype >>> 8);
        b[off + 1] = (byte) ethertype;
        b[off + 2] = 0;
        b[off + 3] = 0;
    }

    public static int ethertype(byte[] b, int off) {
        return (b[off] & 0xff) << 8 | b[off + 1] & 0xff;
    }
}
