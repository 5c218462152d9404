package org.jrdma.ib.core.cli;

/**
 * C's number parsing as glibc does it, for option values: {@code strtol} / {@code strtoul} (base 0:
 * {@code 0x} for hex, {@code 0} for octal) and {@code atoi}. Leading white space is C's
 * {@code isspace}, digits are ASCII only, and a value out of range saturates as glibc's does.
 */
public final class CNum {
    private CNum() {
    }

    /** {@code strtol(s, &end, base)}: the value and where parsing stopped ({@code end - s}; 0 when no digit parsed). */
    public record Parsed(long value, int end) {
    }

    /** {@code strtol(s, NULL, 0)}: the value of the longest prefix that parses, 0 when none does; saturates at the long range. */
    public static long strtol(String s) {
        return strtol(s, 0).value();
    }

    /**
     * {@code strtoul(s, NULL, 0)}: as {@link #strtol(String)}, but a leading '-' negates the value in
     * unsigned arithmetic ({@code "-1"} is {@code ULONG_MAX}), and overflow saturates at
     * {@code ULONG_MAX} (returned as -1L, the same 64 bits).
     */
    public static long strtoul(String s) {
        return parse(s, 0, true).value();
    }

    /** glibc's {@code atoi}: {@code (int) strtol(s, NULL, 10)}, the low 32 bits of the saturated long. */
    public static int atoi(String s) {
        return (int) strtol(s, 10).value();
    }

    /** {@code strtol(s, &end, 0)} with the whole word required ({@code *end == '\0'}): the value, else null. */
    public static Long strtolWhole(String s) {
        Parsed p = strtol(s, 0);
        return p.end() == s.length() ? p.value() : null;
    }

    /** {@code strtol(s, &end, base)}, base 0 (by prefix), 8, 10 or 16. */
    public static Parsed strtol(String s, int base) {
        return parse(s, base, false);
    }

    private static Parsed parse(String s, int base, boolean unsigned) {
        int i = 0;
        int n = s.length();
        while (i < n && isSpace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        if ((base == 0 || base == 16) && i + 2 < n && s.charAt(i) == '0' && (s.charAt(i + 1) | 0x20) == 'x'
                && digit(s.charAt(i + 2), 16) >= 0) {
            base = 16;
            i += 2; // "0x" without a hex digit after it parses as the octal 0, ending at the 'x'
        } else if (base == 0) {
            base = i < n && s.charAt(i) == '0' ? 8 : 10;
        }
        // the magnitude in unsigned 64-bit arithmetic, noting overflow
        long v = 0;
        boolean overflow = false;
        int start = i;
        for (; i < n; i++) {
            int d = digit(s.charAt(i), base);
            if (d < 0) {
                break;
            }
            long hi = Math.multiplyHigh(v, base) + ((v >> 63) & base); // unsigned high word of v*base
            long lo = v * base;
            long sum = lo + d;
            if (hi != 0 || Long.compareUnsigned(sum, lo) < 0) {
                overflow = true;
            }
            v = sum;
        }
        if (i == start) {
            return new Parsed(0, 0); // no digits: end = s
        }
        return new Parsed(saturate(v, negative, overflow, unsigned), i);
    }

    private static long saturate(long v, boolean negative, boolean overflow, boolean unsigned) {
        if (unsigned) {
            if (overflow) {
                return -1L; // ULONG_MAX
            }
            return negative ? -v : v;
        }
        if (negative) {
            return overflow || Long.compareUnsigned(v, Long.MIN_VALUE) > 0 ? Long.MIN_VALUE : -v;
        }
        return overflow || v < 0 ? Long.MAX_VALUE : v;
    }

    private static int digit(char c, int base) {
        return c < 128 ? Character.digit(c, base) : -1;
    }

    /** C's {@code isspace} in the C locale. */
    private static boolean isSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}
