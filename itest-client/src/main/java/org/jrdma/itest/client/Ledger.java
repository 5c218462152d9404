package org.jrdma.itest.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.itest.client.api.CallbackEvent;
import org.jrdma.itest.client.api.CallbackRecorder;

/** Static on purpose: the record outlives the client component (see {@link CallbackRecorder}). */
final class Ledger implements CallbackRecorder {
    static final Ledger INSTANCE = new Ledger();

    private final List<CallbackEvent> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> attached = new LinkedHashMap<>();
    private int generation;

    synchronized int nextGeneration() {
        return ++generation;
    }

    synchronized void record(CallbackEvent e) {
        events.add(e);
    }

    synchronized void violation(String v) {
        violations.add(v);
    }

    synchronized void attached(Map<String, Integer> now) {
        attached.clear();
        attached.putAll(now);
    }

    @Override
    public synchronized List<String> events() {
        return events.stream().map(CallbackEvent::shortForm).toList();
    }

    @Override
    public synchronized List<CallbackEvent> details() {
        return List.copyOf(events);
    }

    @Override
    public synchronized void clear() {
        events.clear();
    }

    @Override
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    @Override
    public synchronized int generation() {
        return generation;
    }

    @Override
    public synchronized Map<String, Integer> attached() {
        return Map.copyOf(attached);
    }
}
