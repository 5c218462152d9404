package org.jrdma.ulp.ipoib.shell;

import java.util.Locale;

/** ping's round-trip statistics in microseconds, printed as iputils does (min/avg/max/mdev in ms). */
final class RttStats {
    private long n;
    private long min = Long.MAX_VALUE;
    private long max;
    private double sum;
    private double sum2;

    void add(long us) {
        n++;
        min = Math.min(min, us);
        max = Math.max(max, us);
        sum += us;
        sum2 += (double) us * us;
    }

    /** {@code 0.045/0.067/0.123/0.028}: mdev is the standard deviation, sqrt(E[t^2] - E[t]^2). */
    String summary() {
        double avg = sum / n;
        double mdev = Math.sqrt(Math.max(0, sum2 / n - avg * avg));
        return String.format(Locale.ROOT, "%.3f/%.3f/%.3f/%.3f", min / 1000.0, avg / 1000.0, max / 1000.0,
                mdev / 1000.0);
    }

    /** A reply's time as iputils prints it: 3 decimals under 1 ms, 2 under 10, 1 under 100, then none. */
    static String ms(long us) {
        if (us >= 100_000) {
            return Long.toString(us / 1000);
        }
        String f = us >= 10_000 ? "%.1f" : us >= 1000 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, f, us / 1000.0);
    }
}
