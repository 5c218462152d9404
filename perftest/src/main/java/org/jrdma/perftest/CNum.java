package org.jrdma.perftest;

/** {@code strtol(s, &end, 0)} as glibc parses it, for the option values. */
final class CNum {
    private CNum() {
    }

    /** The value when the whole word parses ({@code *end == '\0'}), else null. */
    static Long strtolWhole(String s) {
        long[] r = parse(s);
        return r[1] == s.length() ? r[0] : null;
    }

    /** The value of the longest prefix that parses (0 when none does). */
    static long strtolPrefix(String s) {
        return parse(s)[0];
    }

    /** {value, index after the last character used}. */
    private static long[] parse(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        int base = 10;
        int digitsStart = i;
        if (i < n && s.charAt(i) == '0') {
            if (i + 2 < n && (s.charAt(i + 1) | 0x20) == 'x' && Character.digit(s.charAt(i + 2), 16) >= 0) {
                base = 16;
                i += 2;
                digitsStart = i;
            } else {
                base = 8;
            }
        }
        long v = 0;
        int j = i;
        for (; j < n; j++) {
            int d = Character.digit(s.charAt(j), base);
            if (d < 0 || s.charAt(j) > 127) {
                break;
            }
            if (v > (Long.MAX_VALUE - d) / base) {
                v = Long.MAX_VALUE;
            } else {
                v = v * base + d;
            }
        }
        if (j == digitsStart && base != 8) {
            return new long[] {0, 0}; // no digits: end = s
        }
        return new long[] {neg ? -v : v, j};
    }
}
