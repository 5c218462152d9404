package org.jrdma.ib.cm.wire;

import java.util.Arrays;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.Mad;

/** Field checks and fixed-size byte areas shared by the message classes. */
final class Wire {
    private Wire() {
    }

    /** {@code v} if it fits {@code bits} unsigned bits, else IllegalArgumentException naming the field. */
    static int check(String field, int v, int bits) {
        if (bits < 32 && (v < 0 || v >= 1 << bits)) {
            throw new IllegalArgumentException(field + " is a " + bits + "-bit field: " + v + " (0x"
                    + Integer.toHexString(v) + ") does not fit");
        }
        return v;
    }

    static int bit(boolean b) {
        return b ? 1 : 0;
    }

    /** A copy of {@code data} zero-padded to {@code size}; IllegalArgumentException past {@code size}. */
    static byte[] fixed(String what, byte[] data, int size) {
        if (data == null) {
            return new byte[size];
        }
        if (data.length > size) {
            throw new IllegalArgumentException(what + " is at most " + size + " bytes, not " + data.length);
        }
        return Arrays.copyOf(data, size);
    }

    static byte[] read(Mad m, int off, int len) {
        return Arrays.copyOfRange(m.bytes(), off, off + len);
    }

    static void write(Mad m, int off, byte[] data) {
        System.arraycopy(data, 0, m.bytes(), off, data.length);
    }

    static Gid gid(Mad m, int off) {
        return Gid.of(read(m, off, 16));
    }

    static void gid(Mad m, int off, Gid g) {
        write(m, off, (g == null ? Gid.ZERO : g).raw());
    }

    static boolean allZero(Mad m, int off, int len) {
        byte[] b = m.bytes();
        for (int i = off; i < off + len; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
