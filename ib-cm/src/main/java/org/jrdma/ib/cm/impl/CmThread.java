package org.jrdma.ib.cm.impl;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The one thread a CM delivers its events (and runs its timers) on: a named daemon thread, in order.
 * {@link #stop} lets it run what is queued and waits (bounded) for the thread itself to end, so that a
 * stopped CM leaves no thread behind (as MadLayer.close).
 */
final class CmThread extends ScheduledThreadPoolExecutor {
    /** How long {@link #stop} waits for the queued work, and then for the thread to end. */
    private static final long CLOSE_WAIT_MS = 5000;

    /** The worker, for {@link #stop} to wait for its end; null until it starts. */
    private volatile Thread worker;

    CmThread(String name) {
        super(1);
        setThreadFactory(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            worker = t;
            return t;
        });
        setRemoveOnCancelPolicy(true);
    }

    /**
     * A consumer handler's answer to {@code ev}: what it returns, or -1 (destroy the id, as for a non-zero
     * answer) if it throws, which is logged and kept from the CM's thread.
     */
    static int answer(String cm, Object ev, IntSupplier handler) {
        try {
            return handler.getAsInt();
        } catch (RuntimeException e) {
            System.getLogger("org.jrdma.ib.cm").log(System.Logger.Level.WARNING,
                    cm + ": event handler failed on " + ev + ": " + e, e);
            return -1;
        }
    }

    /** Waits (5 s at most) until what is queued now has run; not on the thread itself, nor once stopped. */
    void drain() {
        if (isCurrent() || isShutdown()) {
            return;
        }
        try {
            submit(() -> { }).get(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                | java.util.concurrent.RejectedExecutionException e) {
            // stopped meanwhile, or a handler blocks: the caller's own checks tell
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the caller runs on this thread. */
    boolean isCurrent() {
        return Thread.currentThread() == worker;
    }

    /** Stops once what is queued has run; unless called on the thread itself, waits for the thread to end. */
    void stop() {
        shutdown();
        if (isCurrent()) {
            return; // closed by a handler: the thread ends once it has run what is queued
        }
        try {
            if (!awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                shutdownNow();
            }
            // the executor counts as terminated just before its worker ends: wait for the thread itself
            Thread t = worker;
            if (t != null) {
                t.join(CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
