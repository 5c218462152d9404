package org.jrdma.ib.core.cli;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a Gogo command component running a blocking tool needs: the threads running it now, interrupted
 * when the component goes away (the tool then ends with status 130 after releasing what it allocated),
 * and the command's words as the tool expects them.
 */
public final class ToolRuns {
    /** The threads in {@link #run}, each with whether {@link #interruptAll()} interrupted it. */
    private final Map<Thread, Boolean> running = new ConcurrentHashMap<>();

    /**
     * Runs {@code tool} on the calling thread, which {@link #interruptAll()} interrupts meanwhile. A tool that
     * returns normally although it was interrupted so (ping prints its statistics and exits 0, as on SIGINT)
     * still ends with status 130: its command went away under it, which the caller must not take for success.
     */
    public void run(Runnable tool) {
        Thread self = Thread.currentThread();
        running.put(self, Boolean.FALSE);
        boolean stopped;
        try {
            tool.run();
        } finally {
            stopped = running.remove(self);
        }
        if (stopped) {
            throw new CommandFailure(130, "interrupted: the command's bundle is stopping");
        }
    }

    /** Interrupts every thread in {@link #run} now (the component's deactivate). */
    public void interruptAll() {
        for (Thread t : running.keySet()) {
            running.replace(t, Boolean.TRUE);
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
