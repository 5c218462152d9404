package org.jrdma.ulp.ipoib.impl;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An ARP packet for IPv4 over InfiniBand (RFC 4391 section 8, RFC 826): hardware type 32 ({@code ARPHRD_INFINIBAND}),
 * protocol 0x0800, hardware length 20, protocol length 4, then sender and target hardware and protocol
 * addresses: 56 bytes.
 */
public record ArpPacket(int op, HwAddr senderHw, Inet4Address senderIp, HwAddr targetHw, Inet4Address targetIp) {
    public static final int HTYPE_INFINIBAND = 32;
    public static final int PTYPE_IPV4 = 0x0800;
    public static final int LEN = 8 + 2 * (HwAddr.LEN + 4);
    public static final int REQUEST = 1;
    public static final int REPLY = 2;

    /** Why a received packet is not an IPoIB ARP packet this interface can use. */
    public static final class Malformed extends Exception {
        Malformed(String why) {
            super(why, null, false, false);
        }
    }

    public byte[] encode() {
        byte[] b = new byte[LEN];
        b[0] = 0;
        b[1] = HTYPE_INFINIBAND;
        b[2] = (byte) (PTYPE_IPV4 >>> 8);
        b[3] = (byte) PTYPE_IPV4;
        b[4] = HwAddr.LEN;
        b[5] = 4;
        b[6] = (byte) (op >>> 8);
        b[7] = (byte) op;
        senderHw.encode(b, 8);
        System.arraycopy(senderIp.getAddress(), 0, b, 28, 4);
        if (targetHw != null) {
            targetHw.encode(b, 32);
        }
        System.arraycopy(targetIp.getAddress(), 0, b, 52, 4);
        return b;
    }

    /** The ARP packet at {@code b[off..off+len)}; {@link Malformed} names the field that is wrong. */
    public static ArpPacket decode(byte[] b, int off, int len) throws Malformed {
        if (len < LEN) {
            throw new Malformed("ARP packet of " + len + " bytes, needs " + LEN);
        }
        int htype = u16(b, off);
        int ptype = u16(b, off + 2);
        if (htype != HTYPE_INFINIBAND || ptype != PTYPE_IPV4) {
            throw new Malformed("hardware type " + htype + " / protocol 0x" + Integer.toHexString(ptype));
        }
        if ((b[off + 4] & 0xff) != HwAddr.LEN || (b[off + 5] & 0xff) != 4) {
            throw new Malformed("hardware length " + (b[off + 4] & 0xff) + " / protocol length " + (b[off + 5] & 0xff));
        }
        int op = u16(b, off + 6);
        if (op != REQUEST && op != REPLY) {
            throw new Malformed("operation " + op);
        }
        return new ArpPacket(op, HwAddr.decode(b, off + 8), ip(b, off + 28), HwAddr.decode(b, off + 32),
                ip(b, off + 52));
    }

    private static int u16(byte[] b, int off) {
        return (b[off] & 0xff) << 8 | b[off + 1] & 0xff;
    }

    private static Inet4Address ip(byte[] b, int off) {
        try {
            return (Inet4Address) InetAddress.getByAddress(Arrays.copyOfRange(b, off, off + 4));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }
}
