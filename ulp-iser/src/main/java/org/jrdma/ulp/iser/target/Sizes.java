package org.jrdma.ulp.iser.target;

import java.util.Locale;
import java.util.regex.Pattern;

/** Sizes as targetcli writes and reads them ({@code ui_backstore.human_to_bytes} / {@code bytes_to_human}). */
public final class Sizes {
    private static final Pattern HUMAN = Pattern.compile("[0-9]+[kmgt]?b?");
    private static final String UNITS = "kmgt";
    private static final String[] HUMAN_UNITS = {"KiB", "MiB", "GiB", "TiB", "PiB"};

    private Sizes() {
    }

    /**
     * {@code 64M}, {@code 1G}, {@code 512K}, {@code 4096}, {@code 2GiB}, {@code 10mb}: powers of 1024, bytes
     * without a unit.
     */
    public static long parse(String human) throws TargetConfigException {
        String s = human == null ? "" : human.replace("i", "").toLowerCase(Locale.ROOT);
        if (!HUMAN.matcher(s).matches()) {
            throw new TargetConfigException("Cannot interpret size, wrong format: " + human);
        }
        if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        int power = UNITS.indexOf(s.charAt(s.length() - 1)) + 1;
        String digits = power > 0 ? s.substring(0, s.length() - 1) : s;
        try {
            return Math.multiplyExact(Long.parseLong(digits), 1L << (10 * power));
        } catch (ArithmeticException | NumberFormatException e) {
            throw new TargetConfigException("Cannot interpret size, wrong format: " + human);
        }
    }

    /** {@code 64.0MiB}, {@code 512 bytes}. */
    public static String human(long size) {
        if (size < 1024) {
            return size + " bytes";
        }
        double s = size / 1024.0;
        for (String unit : HUMAN_UNITS) {
            if (s < 1024) {
                return String.format(Locale.ROOT, "%3.1f%s", s, unit);
            }
            s /= 1024;
        }
        return String.format(Locale.ROOT, "%3.1f%s", s * 1024, HUMAN_UNITS[HUMAN_UNITS.length - 1]);
    }
}
