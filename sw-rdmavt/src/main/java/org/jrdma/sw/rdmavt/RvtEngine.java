package org.jrdma.sw.rdmavt;

import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;

/**
 * A soft device's engine: one worker thread for the QP work its posting and receiving threads leave, and
 * for its timers.
 *
 * <p>Not a {@code ScheduledThreadPoolExecutor}: that makes a {@code ScheduledFutureTask} per {@link #execute},
 * and its worker's wait allocates condition nodes; a QP's task is handed over thousands of times a second. Here
 * a task waits in a ring (a QP's task is one object for its life) and timers are reused entries, so handing work
 * over allocates nothing. The worker sleeps with {@code LockSupport.park} and is woken only when it sleeps.
 *
 * <p>A task that throws is logged and the worker goes on (a periodic one keeps its schedule). {@link #stop} drops
 * what is queued and waits for the worker thread itself to end: a test that counts live threads right after a
 * device closed must not see it.
 */
public final class RvtEngine implements Executor {
    private static final System.Logger LOG = System.getLogger("org.jrdma.sw.rdmavt");

    private final Thread worker;
    private final Object lock = new Object();
    /** Tasks to run, in order (guarded by {@link #lock}). */
    private Runnable[] ready = new Runnable[64];
    private int head;
    private int count;
    /** Timers by deadline, a binary heap (guarded by {@link #lock}). */
    private Timer[] timers = new Timer[8];
    private int timerCount;
    private volatile boolean stopped;
    /** The worker is about to sleep or sleeping: whoever adds work wakes it. */
    private volatile boolean sleeping;

    private static final class Timer {
        final Runnable task;
        final long period;
        long deadline;

        Timer(Runnable task, long deadline, long period) {
            this.task = task;
            this.deadline = deadline;
            this.period = period;
        }
    }

    /**
     * @param name the worker thread's name
     * @param newThread makes the worker thread from its runnable and name (a driver may want its own
     *        thread class); it is made a daemon
     */
    public RvtEngine(String name, BiFunction<Runnable, String, Thread> newThread) {
        worker = newThread.apply(this::loop, name);
        worker.setDaemon(true);
        worker.start();
    }

    /** True on the worker thread. */
    public boolean inWorker() {
        return Thread.currentThread() == worker;
    }

    /**
     * Runs {@code task} on the worker, after what is queued before it.
     *
     * @throws RejectedExecutionException once the engine is stopped
     */
    @Override
    public void execute(Runnable task) {
        synchronized (lock) {
            if (stopped) {
                throw new RejectedExecutionException("engine " + worker.getName() + " stopped");
            }
            if (count == ready.length) {
                Runnable[] r = new Runnable[count * 2];
                for (int i = 0; i < count; i++) {
                    r[i] = ready[(head + i) % ready.length];
                }
                ready = r;
                head = 0;
            }
            ready[(head + count) % ready.length] = task;
            count++;
        }
        wake();
    }

    /**
     * Runs {@code task} once on the worker after {@code delay}.
     *
     * @throws RejectedExecutionException once the engine is stopped
     */
    public void schedule(Runnable task, long delay, TimeUnit unit) {
        addTimer(new Timer(task, System.nanoTime() + unit.toNanos(delay), 0));
    }

    /**
     * Runs {@code task} on the worker every {@code period}, the first time after {@code initialDelay}; a run
     * that ends late moves the next one to one period after the late deadline, not to a burst of catch-up runs.
     *
     * @throws RejectedExecutionException once the engine is stopped
     */
    public void scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("period " + period);
        }
        addTimer(new Timer(task, System.nanoTime() + unit.toNanos(initialDelay), unit.toNanos(period)));
    }

    private void addTimer(Timer t) {
        synchronized (lock) {
            if (stopped) {
                throw new RejectedExecutionException("engine " + worker.getName() + " stopped");
            }
            offer(t);
        }
        wake();
    }

    private void wake() {
        if (sleeping) {
            LockSupport.unpark(worker);
        }
    }

    /**
     * Stops the engine (queued work and timers are dropped) and, unless called from the worker itself, waits up
     * to {@code waitMs} for its thread to end.
     */
    public void stop(long waitMs) {
        synchronized (lock) {
            stopped = true;
            Arrays.fill(ready, null);
            count = 0;
            Arrays.fill(timers, null);
            timerCount = 0;
        }
        LockSupport.unpark(worker);
        if (inWorker()) {
            return;
        }
        try {
            worker.join(waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        while (!stopped) {
            Runnable task = null;
            synchronized (lock) {
                long now = timerCount > 0 ? System.nanoTime() : 0;
                if (timerCount > 0 && timers[0].deadline - now <= 0) {
                    // a due timer goes first: a stream of tasks must not hold off the retransmit timer
                    Timer t = timers[0];
                    poll();
                    task = t.task;
                    if (t.period > 0) {
                        t.deadline += t.period;
                        if (t.deadline - now <= 0) {
                            t.deadline = now + t.period;
                        }
                        offer(t);
                    }
                } else if (count > 0) {
                    task = ready[head];
                    ready[head] = null;
                    head = (head + 1) % ready.length;
                    count--;
                }
            }
            if (task != null) {
                run(task);
                continue;
            }
            sleeping = true;
            boolean idle;
            long wait;
            synchronized (lock) {
                // taken after sleeping is set: a task or timer added before this is seen here, one added after
                // it unparks the worker (wake); a deadline read before setting sleeping could miss a new timer
                idle = count == 0 && !stopped;
                wait = timerCount == 0 ? Long.MAX_VALUE : timers[0].deadline - System.nanoTime();
            }
            if (idle && wait > 0) {
                if (wait == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, wait);
                }
            }
            sleeping = false;
        }
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.ERROR, "rdmavt: task on " + worker.getName() + " failed", e);
        }
    }

    // ---------------------------------------------------------------- the timers' heap (under lock)

    private void offer(Timer t) {
        if (timerCount == timers.length) {
            timers = Arrays.copyOf(timers, timerCount * 2);
        }
        int i = timerCount++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (timers[parent].deadline - t.deadline <= 0) {
                break;
            }
            timers[i] = timers[parent];
            i = parent;
        }
        timers[i] = t;
    }

    private void poll() {
        Timer last = timers[--timerCount];
        timers[timerCount] = null;
        if (timerCount == 0) {
            return;
        }
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= timerCount) {
                break;
            }
            if (c + 1 < timerCount && timers[c + 1].deadline - timers[c].deadline < 0) {
                c++;
            }
            if (last.deadline - timers[c].deadline <= 0) {
                break;
            }
            timers[i] = timers[c];
            i = c;
        }
        timers[i] = last;
    }
}
