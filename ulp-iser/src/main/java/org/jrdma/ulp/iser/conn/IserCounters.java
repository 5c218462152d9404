package org.jrdma.ulp.iser.conn;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** A connection's {@link IserCounter}s. */
final class IserCounters {
    private static final IserCounter[] ALL = IserCounter.values();
    private final AtomicLongArray values = new AtomicLongArray(ALL.length);

    void inc(IserCounter c) {
        values.incrementAndGet(c.ordinal());
    }

    void add(IserCounter c, long n) {
        values.addAndGet(c.ordinal(), n);
    }

    long get(IserCounter c) {
        return values.get(c.ordinal());
    }

    Map<IserCounter, Long> snapshot() {
        Map<IserCounter, Long> m = new EnumMap<>(IserCounter.class);
        for (IserCounter c : ALL) {
            m.put(c, values.get(c.ordinal()));
        }
        return m;
    }
}
