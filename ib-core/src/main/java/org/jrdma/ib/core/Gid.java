package org.jrdma.ib.core;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A 128-bit GID ({@code union ib_gid}): on IB the subnet prefix and the port GUID; on RoCEv2 an IPv6
 * address or an IPv4-mapped {@code ::ffff:a.b.c.d}. Immutable.
 */
public final class Gid {
    public static final Gid ZERO = new Gid(new byte[16]);
    /** The IB link-local subnet prefix {@code fe80::/64}. */
    public static final long DEFAULT_SUBNET_PREFIX = 0xfe80_0000_0000_0000L;

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new VerbsException(Errno.EINVAL, "a GID is 16 bytes, not " + raw.length);
        }
        return new Gid(raw.clone());
    }

    public static Gid of(long subnetPrefix, long interfaceId) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (subnetPrefix >>> (56 - 8 * i));
            b[8 + i] = (byte) (interfaceId >>> (56 - 8 * i));
        }
        return new Gid(b);
    }

    /** The RoCEv2 GID of an IP address: IPv6 as is, IPv4 mapped to {@code ::ffff:a.b.c.d}. */
    public static Gid of(InetAddress address) {
        byte[] b = new byte[16];
        byte[] a = address.getAddress();
        if (address instanceof Inet4Address) {
            b[10] = (byte) 0xff;
            b[11] = (byte) 0xff;
            System.arraycopy(a, 0, b, 12, 4);
        } else {
            System.arraycopy(a, 0, b, 0, 16);
        }
        return new Gid(b);
    }

    /** Parses an IPv6-notation GID ({@code fe80::1}, {@code fe80:0000:...}, {@code ::ffff:1.2.3.4}). */
    public static Gid parse(String text) {
        String t = text.trim();
        if (!t.contains(":")) {
            throw new VerbsException(Errno.EINVAL, "not a GID: '" + text + "'");
        }
        try {
            // a literal with ':' is never resolved through DNS
            InetAddress a = InetAddress.getByName(t);
            if (a instanceof Inet4Address) {
                return of(a); // ::ffff:a.b.c.d is returned as IPv4 by the JDK
            }
            return new Gid(a.getAddress());
        } catch (UnknownHostException e) {
            throw new VerbsException(Errno.EINVAL, "not a GID: '" + text + "'");
        }
    }

    public byte[] raw() {
        return raw.clone();
    }

    public long subnetPrefix() {
        return longAt(0);
    }

    public long interfaceId() {
        return longAt(8);
    }

    private long longAt(int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (raw[off + i] & 0xff);
        }
        return v;
    }

    public boolean isZero() {
        return Arrays.equals(raw, ZERO.raw);
    }

    public boolean isV4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /** The IP address this GID stands for (IPv4 for a v4-mapped GID). */
    public InetAddress toInetAddress() {
        try {
            if (isV4Mapped()) {
                return InetAddress.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Full form, as {@code ibv_devinfo -v} and sysfs print it: {@code fe80:0000:0000:0000:0002:c903:0000:0001}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x%02x", raw[i] & 0xff, raw[i + 1] & 0xff));
        }
        return sb.toString();
    }

    /** Compressed IPv6 form, as rdma-core 44's {@code ibv_devinfo -v} prints GIDs: {@code ::ffff:192.0.2.10}. */
    public String toCompressedString() {
        if (isV4Mapped()) {
            return "::ffff:" + toInetAddress().getHostAddress();
        }
        return compressV6();
    }

    private String compressV6() {
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = ((raw[2 * i] & 0xff) << 8) | (raw[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (w[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && w[j] == 0) {
                j++;
            }
            if (j - i > bestLen && j - i > 1) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(w[i]));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid && Arrays.equals(raw, ((Gid) o).raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }
}
