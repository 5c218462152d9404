package org.jrdma.hw.rxe.net;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One wire's {@link RxeNetCounter}s. Each counter has a cache line of its own: senders count {@code SENT} while the
 * receive thread counts {@code RECEIVED}.
 */
final class RxeNetCounters {
    /** longs per cache line */
    private static final int STRIDE = 8;
    private final AtomicLongArray values = new AtomicLongArray(RxeNetCounter.values().length * STRIDE);

    void inc(RxeNetCounter c) {
        values.incrementAndGet(c.ordinal() * STRIDE);
    }

    void add(RxeNetCounter c, long n) {
        values.addAndGet(c.ordinal() * STRIDE, n);
    }

    long get(RxeNetCounter c) {
        return values.get(c.ordinal() * STRIDE);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (RxeNetCounter c : RxeNetCounter.values()) {
            b.append(b.length() == 0 ? "" : " ").append(c.label()).append('=').append(get(c));
        }
        return b.toString();
    }
}
