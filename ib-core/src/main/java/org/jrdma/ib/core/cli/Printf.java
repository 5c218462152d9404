package org.jrdma.ib.core.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/** The C {@code printf} conversions the tools' output needs that Java's formatter spells differently. */
public final class Printf {
    private Printf() {
    }

    /** {@code String.format} in the C locale. */
    public static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    /**
     * {@code printf("%.2f", v)} as glibc prints it: the exact binary value rounded half-even (so
     * 0.125 is "0.12"), and {@code inf}, {@code -inf}, {@code -nan} for the special values (an x86
     * 0/0 has the sign bit set).
     */
    public static String f2(double v) {
        if (Double.isNaN(v)) {
            return "-nan"; // what x86 produces for the tools' only NaN, 0/0
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(v).setScale(2, RoundingMode.HALF_EVEN).toPlainString();
        if ((v < 0 || (v == 0 && 1 / v < 0)) && !s.startsWith("-")) {
            s = "-" + s; // printf keeps the sign of -0.0 and of values that round to zero
        }
        return s;
    }

    /** {@code %#0Nx}: zero-padded to N characters including the {@code 0x}, which C leaves out for 0. */
    public static String altHex(long v, int width) {
        String digits = Long.toHexString(v);
        String prefix = v == 0 ? "" : "0x";
        StringBuilder sb = new StringBuilder(prefix);
        for (int i = prefix.length() + digits.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    /** {@code %0Nx}. */
    public static String hex(long v, int width) {
        String digits = Long.toHexString(v);
        StringBuilder sb = new StringBuilder();
        for (int i = digits.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }
}
