package org.jrdma.perftest;

import java.util.Locale;

/** The few C {@code printf} conversions perftest's output needs that Java's formatter spells differently. */
final class Fmt {
    private Fmt() {
    }

    /** {@code %#0Nx}: zero-padded to N characters including the {@code 0x}, which C leaves out for 0. */
    static String altHex(long v, int width) {
        String digits = Long.toHexString(v);
        String prefix = v == 0 ? "" : "0x";
        StringBuilder sb = new StringBuilder(prefix);
        for (int i = prefix.length() + digits.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    /** {@code %0Nx}. */
    static String hex(long v, int width) {
        String digits = Long.toHexString(v);
        StringBuilder sb = new StringBuilder();
        for (int i = digits.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    /** {@code String.format} in the C locale. */
    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
