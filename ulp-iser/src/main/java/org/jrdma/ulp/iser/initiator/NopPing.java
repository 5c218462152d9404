package org.jrdma.ulp.iser.initiator;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.jrdma.ulp.iser.IserSessionOptions;

/**
 * The connection's keepalive (libiscsi's {@code iscsi_check_transport_timeouts}): a NOP-Out ping every
 * noop_out_interval; a ping unanswered for noop_out_timeout drops the connection, which starts recovery.
 */
final class NopPing {
    private final long intervalNanos;
    private final long timeoutNanos;
    private final ScheduledExecutorService timers;
    private final IntSupplier send;
    private final Runnable timedOut;
    private final AtomicLong answered = new AtomicLong();
    private ScheduledFuture<?> tick;
    private int outstandingItt = -1;
    private long sentAt;
    private long lastAnswer;

    NopPing(IserSessionOptions o, ScheduledExecutorService timers, IntSupplier send, Runnable timedOut) {
        this.intervalNanos = o.noopOutInterval().toNanos();
        this.timeoutNanos = o.noopOutTimeout().toNanos();
        this.timers = timers;
        this.send = send;
        this.timedOut = timedOut;
    }

    synchronized void start() {
        stop();
        if (intervalNanos == 0) {
            return;
        }
        lastAnswer = System.nanoTime();
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(20), Math.min(intervalNanos, timeoutNanos) / 4);
        tick = timers.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
    }

    synchronized void stop() {
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
        outstandingItt = -1;
    }

    /** A NOP-In with ITT {@code itt} arrived. */
    synchronized void answered(int itt) {
        if (itt == outstandingItt) {
            outstandingItt = -1;
            lastAnswer = System.nanoTime();
            answered.incrementAndGet();
        }
    }

    long answered() {
        return answered.get();
    }

    private void tick() {
        boolean drop;
        synchronized (this) {
            long now = System.nanoTime();
            drop = outstandingItt != -1 && now - sentAt > timeoutNanos;
            if (drop) {
                stop();
            } else if (outstandingItt == -1 && now - lastAnswer >= intervalNanos) {
                outstandingItt = send.getAsInt();
                sentAt = now;
            }
        }
        if (drop) {
            timedOut.run();
        }
    }
}
