package org.jrdma.ulp.iser.target;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The runtime's {@link TargetCounter}s: added to from any thread, read as a snapshot. */
public final class TargetCounters {
    private final Map<TargetCounter, LongAdder> adders = new EnumMap<>(TargetCounter.class);

    public TargetCounters() {
        for (TargetCounter c : TargetCounter.values()) {
            adders.put(c, new LongAdder());
        }
    }

    void add(TargetCounter counter, long n) {
        adders.get(counter).add(n);
    }

    void increment(TargetCounter counter) {
        adders.get(counter).increment();
    }

    public long get(TargetCounter counter) {
        return adders.get(counter).sum();
    }

    /** All counters, in enum order. */
    public Map<TargetCounter, Long> snapshot() {
        Map<TargetCounter, Long> out = new EnumMap<>(TargetCounter.class);
        adders.forEach((c, a) -> out.put(c, a.sum()));
        return out;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
