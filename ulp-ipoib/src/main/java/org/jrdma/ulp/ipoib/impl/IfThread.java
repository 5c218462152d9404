package org.jrdma.ulp.ipoib.impl;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The thread of one interface ("ipoib-ibN": Linux's workqueue and NAPI in one): every task runs on it, a failing
 * task is logged and never ends it, and nothing runs once the interface is closing. Timers end with it.
 */
final class IfThread {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.ipoib");

    private final String name;
    private final ScheduledThreadPoolExecutor exec;
    private final BooleanSupplier closing;

    IfThread(String name, BooleanSupplier closing) {
        this.name = name;
        this.closing = closing;
        exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ipoib-" + name);
            t.setDaemon(true);
            return t;
        });
        exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // ARP and join timers end with the interface
        exec.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code task} on the thread, even while closing (the caller checks); false once the thread is gone. */
    boolean execute(Runnable task) {
        try {
            exec.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Runs {@code task} on the thread unless the interface is closing by then; false once the thread is gone. */
    boolean run(Runnable task) {
        return execute(() -> guarded(task));
    }

    Future<?> schedule(Runnable task, long ms) {
        try {
            return exec.schedule(() -> guarded(task), ms, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    Future<?> scheduleAtFixedRate(Runnable task, long periodMs) {
        try {
            return exec.scheduleAtFixedRate(() -> guarded(task), periodMs, periodMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Runs {@code task} on the thread and waits for it; its RuntimeException is the caller's. */
    void call(Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!execute(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        })) {
            throw new IllegalStateException(name + " is gone");
        }
        try {
            done.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + ": no answer from the interface's thread");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts {@code op} on the thread; its future's outcome, or a failed one if the thread is gone. */
    <T> CompletableFuture<T> submit(java.util.function.Supplier<CompletableFuture<T>> op) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!run(() -> op.get().whenComplete((v, e) -> {
            if (e == null) {
                f.complete(v);
            } else {
                f.completeExceptionally(e);
            }
        }))) {
            f.completeExceptionally(new IllegalStateException(name + " is gone"));
        }
        return f;
    }

    /** Runs {@code task} here and now (on the thread), unless closing; what it throws is logged. */
    void guarded(Runnable task) {
        if (closing.getAsBoolean()) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, name + ": " + e, e);
        }
    }

    /** Ends the thread once what is queued ran (sends queued meanwhile are counted by their tasks). */
    void shutdown() {
        exec.shutdown();
        try {
            exec.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
