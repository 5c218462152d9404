package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.EventType;

/**
 * An {@link EventHandler} that records every async event it gets (on whatever driver thread) so a
 * test can wait for one, count them, or check that none came.
 */
public final class EventLog implements EventHandler {
    /** A runaway driver may raise events without end: keep the first ones, count the rest. */
    private static final int KEEP = 1000;
    private final List<AsyncEvent> events = new ArrayList<>();
    private final java.util.Map<EventType, Integer> dropped = new java.util.EnumMap<>(EventType.class);

    @Override
    public synchronized void handle(AsyncEvent event) {
        if (events.size() < KEEP) {
            events.add(event);
        } else {
            dropped.merge(event.type(), 1, Integer::sum);
        }
        notifyAll();
    }

    /** Every event so far, in arrival order. */
    public synchronized List<AsyncEvent> events() {
        return List.copyOf(events);
    }

    /** How many events of {@code type} arrived so far. */
    public synchronized int count(EventType type) {
        int n = dropped.getOrDefault(type, 0);
        for (AsyncEvent e : events) {
            if (e.type() == type) {
                n++;
            }
        }
        return n;
    }

    /** Waits (bounded) until at least {@code n} events of {@code type} arrived; fails on timeout. */
    public synchronized AsyncEvent await(EventType type, int n, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (count(type) < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("timed out after " + timeoutMs + " ms waiting for " + n + " " + type + " event(s); got "
                        + events);
            }
            try {
                wait(Math.max(1, left / 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + type);
            }
        }
        AsyncEvent last = null;
        for (AsyncEvent e : events) {
            if (e.type() == type) {
                last = e;
            }
        }
        return last;
    }

    /** Waits for the first event of {@code type}. */
    public AsyncEvent await(EventType type, long timeoutMs) {
        return await(type, 1, timeoutMs);
    }

    @Override
    public synchronized String toString() {
        return events + (dropped.isEmpty() ? "" : " and more not kept: " + dropped);
    }
}
