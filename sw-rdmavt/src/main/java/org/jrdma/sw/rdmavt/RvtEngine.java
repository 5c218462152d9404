package org.jrdma.sw.rdmavt;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * A soft device's engine: one worker thread for the QP work its posting and receiving threads leave, and
 * for its timers. {@link #stop} waits for the worker thread itself to end, not only for the executor to
 * count as terminated, which it does just before its thread ends: a test that counts live threads right
 * after a device closed saw the engine still there.
 */
public final class RvtEngine extends ScheduledThreadPoolExecutor {
    private volatile Thread worker;

    /**
     * @param name the worker thread's name
     * @param newThread makes the worker thread from its runnable and name (a driver may want its own
     *        thread class); it is made a daemon
     */
    public RvtEngine(String name, BiFunction<Runnable, String, Thread> newThread) {
        super(1);
        setThreadFactory(r -> {
            Thread t = newThread.apply(r, name);
            t.setDaemon(true);
            worker = t;
            return t;
        });
        setRemoveOnCancelPolicy(true);
    }

    /** True on the worker thread. */
    public boolean inWorker() {
        return Thread.currentThread() == worker;
    }

    /**
     * Stops the engine (queued work is dropped) and, unless called from the worker itself, waits up to
     * {@code waitMs} for the executor to terminate and then up to {@code waitMs} for its thread to end.
     */
    public void stop(long waitMs) {
        shutdownNow();
        if (inWorker()) {
            return;
        }
        try {
            awaitTermination(waitMs, TimeUnit.MILLISECONDS);
            Thread t = worker;
            if (t != null) {
                t.join(waitMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
