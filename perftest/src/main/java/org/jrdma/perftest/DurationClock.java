package org.jrdma.perftest;

/** perftest's duration states, driven by elapsed time instead of SIGALRM. */
final class DurationClock {
    static final int START = 0;
    static final int SAMPLE = 1;
    static final int STOP = 2;
    static final int END = 3;
    final long marginNs;
    final long durationNs;
    long t0;
    long sampleStart;
    long sampleEnd;
    int state;

    DurationClock(Params p) {
        marginNs = p.margin * 1_000_000_000L;
        durationNs = p.durationSec * 1_000_000_000L;
    }

    /** A clock started now. */
    static DurationClock started(Params p) {
        DurationClock c = new DurationClock(p);
        c.start();
        return c;
    }

    void start() {
        t0 = System.nanoTime();
        state();
    }

    int state() {
        long now = System.nanoTime();
        long el = now - t0;
        if (state == START && el >= marginNs) {
            state = SAMPLE;
            sampleStart = now;
        }
        if (state == SAMPLE && el >= durationNs - marginNs) {
            state = STOP;
            sampleEnd = now;
        }
        if (state == STOP && el >= durationNs) {
            state = END;
        }
        return state;
    }
}
