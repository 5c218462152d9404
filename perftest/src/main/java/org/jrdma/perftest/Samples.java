package org.jrdma.perftest;

/**
 * What one run of the iterations leaves for the report: the iterations counted (in duration mode, those
 * of the sample window) and the post and completion times, as perftest's {@code tposted} and
 * {@code tcompleted} (in duration mode, the window's start and end in their first slots).
 */
record Samples(long iters, long[] tposted, long[] tcompleted) {
    /** Duration mode's result: the window of {@code clock} and what was counted in it. */
    static Samples window(long iters, DurationClock clock) {
        return new Samples(iters, new long[] {clock.sampleStart}, new long[] {clock.sampleEnd});
    }
}
