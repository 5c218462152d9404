package org.jrdma.ib.core.cli;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a Gogo command component running a blocking tool needs: the threads running it now, interrupted
 * when the component goes away (the tool then ends with status 130 after releasing what it allocated),
 * and the command's words as the tool expects them.
 */
public final class ToolRuns {
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    /** Runs {@code tool} on the calling thread, which {@link #interruptAll()} interrupts meanwhile. */
    public void run(Runnable tool) {
        Thread self = Thread.currentThread();
        running.add(self);
        try {
            tool.run();
        } finally {
            running.remove(self);
        }
    }

    /** Interrupts every thread in {@link #run} now (the component's deactivate). */
    public void interruptAll() {
        for (Thread t : running) {
            t.interrupt();
        }
    }

    /** Gogo evaluates the word {@code null} to null: give the tool the word back. */
    public static String[] words(String[] args) {
        if (args == null) {
            return new String[0];
        }
        String[] w = args.clone();
        for (int i = 0; i < w.length; i++) {
            if (w[i] == null) {
                w[i] = "null";
            }
        }
        return w;
    }
}
