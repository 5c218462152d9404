package org.jrdma.hw.rxe;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** One device's counters: a LongAdder per {@link RxeCounter}. */
public final class RxeCounters {
    private final LongAdder[] adders = new LongAdder[RxeCounter.values().length];

    public RxeCounters() {
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
    }

    public void inc(RxeCounter c) {
        adders[c.ordinal()].increment();
    }

    public long get(RxeCounter c) {
        return adders[c.ordinal()].sum();
    }

    public Map<RxeCounter, Long> snapshot() {
        Map<RxeCounter, Long> m = new EnumMap<>(RxeCounter.class);
        for (RxeCounter c : RxeCounter.values()) {
            m.put(c, get(c));
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (RxeCounter c : RxeCounter.values()) {
            long v = get(c);
            if (v != 0) {
                b.append(b.length() == 0 ? "" : " ").append(c.label()).append('=').append(v);
            }
        }
        return b.toString();
    }
}
