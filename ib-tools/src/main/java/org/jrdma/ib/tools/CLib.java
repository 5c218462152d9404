package org.jrdma.ib.tools;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The few libc behaviours the pingpong tools' output and option parsing depend on: {@code strtol} /
 * {@code strtoul} with base 0, {@code printf("%.2f")} and {@code inet_ntop(AF_INET6)}, as glibc
 * does them.
 */
final class CLib {
    private CLib() {
    }

    /**
     * {@code strtol(s, NULL, 0)}: leading white space, a sign, {@code 0x} for hex or {@code 0} for
     * octal, then as many digits as parse; 0 when none do. Saturates at the {@code long} range.
     */
    static long strtol(String s) {
        return parse(s, false);
    }

    /**
     * {@code strtoul(s, NULL, 0)}: as {@link #strtol}, but a leading '-' negates the value in
     * unsigned arithmetic ({@code "-1"} is {@code ULONG_MAX}), and overflow saturates at
     * {@code ULONG_MAX} (returned as -1L, the same 64 bits).
     */
    static long strtoul(String s) {
        return parse(s, true);
    }

    private static long parse(String s, boolean unsigned) {
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
        int base = 10;
        if (i < n && s.charAt(i) == '0') {
            if (i + 2 < n && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')
                    && s.charAt(i + 2) < 128 && Character.digit(s.charAt(i + 2), 16) >= 0) {
                base = 16;
                i += 2;
            } else {
                base = 8;
            }
        }
        // magnitude in unsigned 64-bit arithmetic, saturating
        long v = 0;
        boolean overflow = false;
        boolean any = false;
        for (; i < n; i++) {
            char c = s.charAt(i);
            int d = c < 128 ? Character.digit(c, base) : -1;
            if (d < 0) {
                break;
            }
            any = true;
            long hi = Math.multiplyHigh(v, base) + ((v >> 63) & base); // unsigned high word of v*base
            long lo = v * base;
            long sum = lo + d;
            if (hi != 0 || Long.compareUnsigned(sum, lo) < 0) {
                overflow = true;
            }
            v = sum;
        }
        if (!any) {
            return 0;
        }
        if (unsigned) {
            if (overflow) {
                return -1L; // ULONG_MAX
            }
            return negative ? -v : v;
        }
        if (negative) {
            if (overflow || Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
                return Long.MIN_VALUE;
            }
            return -v;
        }
        if (overflow || v < 0) {
            return Long.MAX_VALUE;
        }
        return v;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /**
     * {@code printf("%.2f", v)} as glibc prints it: the exact binary value rounded half-even (so
     * 0.125 is "0.12"), and {@code inf}, {@code -inf}, {@code -nan} for the special values (an x86
     * 0/0 has the sign bit set).
     */
    static String f2(double v) {
        if (Double.isNaN(v)) {
            return "-nan"; // what x86 produces for the tools' only NaN, 0/0
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(v).setScale(2, RoundingMode.HALF_EVEN).toPlainString();
        if (v < 0 || (v == 0 && 1 / v < 0)) {
            if (!s.startsWith("-")) {
                s = "-" + s; // printf keeps the sign of -0.0 and of values that round to zero
            }
        }
        return s;
    }

    /** {@code inet_ntop(AF_INET6, raw, ...)} as glibc writes it (RFC 2373 compression, embedded IPv4). */
    static String inetNtop6(byte[] raw) {
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = ((raw[2 * i] & 0xff) << 8) | (raw[2 * i + 1] & 0xff);
        }
        // the first longest run of at least two zero words
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (w[i] == 0) {
                if (curBase == -1) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
            } else if (curBase != -1) {
                if (bestBase == -1 || curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase != -1 && (bestBase == -1 || curLen > bestLen)) {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestBase != -1 && bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(46);
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0
                    && (bestLen == 6 || (bestLen == 7 && w[7] != 0x0001) || (bestLen == 5 && w[5] == 0xffff))) {
                sb.append(raw[12] & 0xff).append('.').append(raw[13] & 0xff).append('.')
                        .append(raw[14] & 0xff).append('.').append(raw[15] & 0xff);
                return sb.toString();
            }
            sb.append(Integer.toHexString(w[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            sb.append(':');
        }
        return sb.toString();
    }
}
