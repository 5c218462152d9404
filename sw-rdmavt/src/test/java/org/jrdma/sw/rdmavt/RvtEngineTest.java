package org.jrdma.sw.rdmavt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RvtEngineTest {
    private RvtEngine engine;
    private final AtomicReference<Thread> thread = new AtomicReference<>();

    private RvtEngine start() {
        engine = new RvtEngine("test-engine", (r, n) -> {
            Thread t = new Thread(r, n);
            thread.set(t);
            return t;
        });
        return engine;
    }

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.stop(2000);
        }
    }

    @Test
    void tasksRunInOrderOnTheWorker() throws Exception {
        RvtEngine e = start();
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger elsewhere = new AtomicInteger();
        for (int i = 0; i < 1000; i++) { // more than the ring's first size: it grows, keeping the order
            int k = i;
            e.execute(() -> {
                if (!e.inWorker()) {
                    elsewhere.incrementAndGet();
                }
                seen.add(k);
            });
        }
        e.execute(done::countDown);
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertEquals(0, elsewhere.get());
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, seen.get(i));
        }
        assertFalse(e.inWorker());
    }

    @Test
    void aFailingTaskDoesNotEndTheWorker() throws Exception {
        RvtEngine e = start();
        CountDownLatch done = new CountDownLatch(1);
        e.execute(() -> {
            throw new IllegalStateException("expected by the test");
        });
        e.execute(done::countDown);
        assertTrue(done.await(5, TimeUnit.SECONDS));
    }

    @Test
    void timersFireAfterTheirDelayAndPeriodicOnesRepeat() throws Exception {
        RvtEngine e = start();
        long t0 = System.nanoTime();
        AtomicLong once = new AtomicLong();
        CountDownLatch fired = new CountDownLatch(1);
        e.schedule(() -> {
            once.set(System.nanoTime() - t0);
            fired.countDown();
        }, 30, TimeUnit.MILLISECONDS);
        AtomicInteger ticks = new AtomicInteger();
        e.scheduleAtFixedRate(ticks::incrementAndGet, 1, 1, TimeUnit.MILLISECONDS);
        assertTrue(fired.await(5, TimeUnit.SECONDS));
        assertTrue(once.get() >= TimeUnit.MILLISECONDS.toNanos(30), "fired after " + once.get() + " ns");
        Thread.sleep(200);
        int n = ticks.get();
        assertTrue(n >= 20, "a 1 ms timer ran " + n + " times in 230 ms"); // loose: a loaded 2-core host
    }

    /**
     * A timer added from another thread while the worker is on its way to sleep fires on time: the worker must
     * not park on the deadline it read before the timer was added (or forever, with no timer before).
     */
    @Test
    void aTimerAddedWhileTheWorkerGoesToSleepFires() throws Exception {
        RvtEngine e = start();
        java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
        for (int i = 0; i < 20_000; i++) {
            CountDownLatch fired = new CountDownLatch(1);
            ran.set(false);
            e.execute(() -> ran.set(true)); // the worker runs it, then goes idle while the timer below is added
            while (!ran.get()) {
                Thread.onSpinWait(); // no sleep: the timer is added while the worker is still on its way
            }
            e.schedule(fired::countDown, 0, TimeUnit.MILLISECONDS);
            assertTrue(fired.await(2, TimeUnit.SECONDS), "timer " + i + " did not fire");
        }
    }

    /** The retransmit timer must run while QP tasks keep the worker busy. */
    @Test
    void aStreamOfTasksDoesNotHoldOffATimer() throws Exception {
        RvtEngine e = start();
        AtomicInteger ticks = new AtomicInteger();
        e.scheduleAtFixedRate(ticks::incrementAndGet, 1, 1, TimeUnit.MILLISECONDS);
        Runnable[] again = new Runnable[1];
        AtomicInteger runs = new AtomicInteger();
        again[0] = () -> {
            runs.incrementAndGet();
            e.execute(again[0]); // always something queued
        };
        e.execute(again[0]);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        while (ticks.get() < 10 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertTrue(ticks.get() >= 10, "ticks " + ticks.get() + " while " + runs.get() + " tasks ran");
    }

    @Test
    void stopEndsTheThreadAndRejectsMoreWork() throws Exception {
        RvtEngine e = start();
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger ranAfterStop = new AtomicInteger();
        e.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        e.execute(ranAfterStop::incrementAndGet); // queued behind the sleeper: dropped by stop
        assertTrue(started.await(5, TimeUnit.SECONDS));
        e.stop(2000);
        assertFalse(thread.get().isAlive(), "the worker ended before stop returned");
        assertEquals(0, ranAfterStop.get());
        assertThrows(RejectedExecutionException.class, () -> e.execute(() -> { }));
        assertThrows(RejectedExecutionException.class, () -> e.schedule(() -> { }, 1, TimeUnit.MILLISECONDS));
    }

    @Test
    void stopFromATaskReturnsAndTheWorkerEnds() throws Exception {
        RvtEngine e = start();
        e.execute(() -> e.stop(2000));
        thread.get().join(2000);
        assertFalse(thread.get().isAlive());
    }

    /**
     * A QP's task handed over again and again allocates nothing, neither on the caller nor on the worker. As a
     * QP's is, the task is queued only when it is not queued already (its {@code scheduled} flag).
     */
    @Test
    void handingOverATaskAllocatesNothing() throws Exception {
        RvtEngine e = start();
        AtomicInteger runs = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean scheduled = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable task = () -> {
            scheduled.set(false);
            runs.incrementAndGet();
        };
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 2; round++) { // the first round warms up (JIT)
            long me = Thread.currentThread().getId();
            long w = thread.get().getId();
            long a0 = mx.getThreadAllocatedBytes(me);
            long w0 = mx.getThreadAllocatedBytes(w);
            int target = runs.get() + 100_000;
            int handed = 0;
            while (runs.get() < target) {
                if (scheduled.compareAndSet(false, true)) {
                    e.execute(task);
                    handed++;
                } else {
                    Thread.onSpinWait();
                }
            }
            long mine = mx.getThreadAllocatedBytes(me) - a0;
            long worker = mx.getThreadAllocatedBytes(w) - w0;
            if (round == 1) {
                // a task object per hand-over would be megabytes; allow a few KB of JIT or park bookkeeping
                assertTrue(handed >= 100_000, "handed " + handed);
                assertTrue(mine < 16 * 1024, "the caller allocated " + mine + " B for " + handed + " hand-overs");
                assertTrue(worker < 16 * 1024, "the worker allocated " + worker + " B for 100,000 tasks");
            }
        }
    }
}
