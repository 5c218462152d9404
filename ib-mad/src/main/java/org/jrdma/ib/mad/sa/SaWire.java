package org.jrdma.ib.mad.sa;

import org.jrdma.ib.core.Gid;

/** Big-endian access to a record's bytes (package-private helpers of the record classes). */
final class SaWire {
    private SaWire() {
    }

    static int u8(byte[] b, int o) { return b[o] & 0xff; }
    static int u16(byte[] b, int o) { return (b[o] & 0xff) << 8 | b[o + 1] & 0xff; }
    static long u32(byte[] b, int o) { return ((long) u16(b, o) << 16 | u16(b, o + 2)) & 0xffffffffL; }
    static long u64(byte[] b, int o) { return u32(b, o) << 32 | u32(b, o + 4); }
    static void u8(byte[] b, int o, int v) { b[o] = (byte) v; }
    static void u16(byte[] b, int o, int v) { b[o] = (byte) (v >>> 8); b[o + 1] = (byte) v; }
    static void u32(byte[] b, int o, long v) { u16(b, o, (int) (v >>> 16)); u16(b, o + 2, (int) v); }
    static void u64(byte[] b, int o, long v) { u32(b, o, v >>> 32); u32(b, o + 4, v); }

    static Gid gid(byte[] b, int o) {
        return Gid.of(java.util.Arrays.copyOfRange(b, o, o + 16));
    }

    static void gid(byte[] b, int o, Gid g) {
        System.arraycopy((g == null ? Gid.ZERO : g).raw(), 0, b, o, 16);
    }
}
