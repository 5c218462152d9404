package org.jrdma.ulp.iser.initiator;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.jrdma.ulp.iser.IserIoException;

/**
 * sd's command timeout: each tick hands the session's error handler ({@link TaskRecovery}: ABORT TASK, LU RESET,
 * connection drop) the time; a command that timed out more than {@value #MAX_RETRIES} times (sd's
 * SD_MAX_RETRIES) fails.
 */
final class CommandTimer {
    static final int MAX_RETRIES = 5;
    private final Duration timeout;
    private final BiFunction<Long, Long, List<IserTask>> expire;
    private final ScheduledFuture<?> tick;

    /**
     * @param expire called with (now, timeout) in nanoseconds: the tasks past their retries, to fail (or null)
     */
    CommandTimer(Duration timeout, ScheduledExecutorService timers, BiFunction<Long, Long, List<IserTask>> expire) {
        this.timeout = timeout;
        this.expire = expire;
        long period = Math.max(10, Math.min(1000, timeout.toMillis() / 4));
        this.tick = timers.scheduleAtFixedRate(this::check, period, period, TimeUnit.MILLISECONDS);
    }

    private void check() {
        List<IserTask> failed = expire.apply(System.nanoTime(), timeout.toNanos());
        if (failed != null) {
            fail(failed);
        }
    }

    /** Fails commands past their retries (outside the session's lock). */
    void fail(List<IserTask> failed) {
        for (IserTask t : failed) {
            t.done.completeExceptionally(new IserIoException(t.describe() + ": timed out after "
                    + (MAX_RETRIES + 1) + " tries of " + words(timeout)));
        }
    }

    void stop() {
        tick.cancel(false);
    }

    /** "120 s", or "600 ms" below a whole second. */
    static String words(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
