package org.jrdma.ulp.ipoib.impl;

import java.util.Arrays;
import java.util.HexFormat;

import org.jrdma.ib.core.Gid;

/**
 * The 20-byte IPoIB link-layer address (RFC 4391 section 9.1.1, {@code INFINIBAND_ALEN}): a flags byte
 * ({@code IPOIB_FLAGS_RC} 0x80 advertises connected mode), the 24-bit QPN, the 16-byte port GID.
 */
public record HwAddr(int flags, int qpn, Gid gid) {
    public static final int LEN = 20;
    /** {@code IPOIB_FLAGS_RC}: the sender can do connected mode (RFC 4755). Not set: datagram only. */
    public static final int FLAGS_RC = 0x80;
    public static final int MULTICAST_QPN = 0xffffff;

    public HwAddr {
        if ((flags & ~0xff) != 0 || (qpn & ~0xffffff) != 0) {
            throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags) + " / qpn 0x"
                    + Integer.toHexString(qpn) + " out of range");
        }
    }

    public static HwAddr decode(byte[] b, int off) {
        int qpn = (b[off + 1] & 0xff) << 16 | (b[off + 2] & 0xff) << 8 | b[off + 3] & 0xff;
        return new HwAddr(b[off] & 0xff, qpn, Gid.of(Arrays.copyOfRange(b, off + 4, off + LEN)));
    }

    public void encode(byte[] b, int off) {
        b[off] = (byte) flags;
        b[off + 1] = (byte) (qpn >>> 16);
        b[off + 2] = (byte) (qpn >>> 8);
        b[off + 3] = (byte) qpn;
        System.arraycopy(gid.raw(), 0, b, off + 4, 16);
    }

    public byte[] bytes() {
        byte[] b = new byte[LEN];
        encode(b, 0);
        return b;
    }

    /** The broadcast address of a partition: QPN 0xffffff, MGID {@code ff12:401b:PKEY::ffff:ffff}. */
    public static HwAddr broadcast(int pkey) {
        return new HwAddr(0, MULTICAST_QPN, IpoibMgid.broadcast(pkey));
    }

    /** {@code ip link}'s form: twenty colon-separated hex bytes. */
    public static String format(byte[] addr) {
        return HexFormat.ofDelimiter(":").formatHex(addr);
    }

    @Override
    public String toString() {
        return format(bytes());
    }
}
