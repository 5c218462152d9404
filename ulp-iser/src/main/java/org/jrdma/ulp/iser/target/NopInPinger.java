package org.jrdma.ulp.iser.target;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The target's NOP-In pings (LIO's {@code nopin_timeout} / {@code nopin_response_timeout}): a connection in
 * the full feature phase that received nothing for {@code idle} gets a NOP-In with a TTT (ITT 0xffffffff, StatSN
 * not advanced); no NOP-Out echoing the TTT within {@code timeout} drops the connection, and its session ends.
 * An idle RC connection to a vanished peer would otherwise never notice: nothing is sent on it to fail.
 */
final class NopInPinger implements AutoCloseable {
    /** LIO's defaults: ping after 15 s, give up 30 s later. */
    static final Duration DEFAULT_IDLE = Duration.ofSeconds(15);
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "iser-target-nopin");
        t.setDaemon(true);
        return t;
    });

    NopInPinger(Set<TargetConnection> connections, Duration idle, Duration timeout) {
        long idleNanos = idle.toNanos();
        long timeoutNanos = timeout.toNanos();
        long tick = Math.max(1, Math.min(idle.toMillis(), timeout.toMillis()) / 4);
        timer.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            for (TargetConnection c : connections) {
                c.nopInTick(now, idleNanos, timeoutNanos);
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
