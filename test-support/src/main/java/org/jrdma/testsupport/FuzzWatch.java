package org.jrdma.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What a fuzz test must never see while it feeds a component: a log record of WARNING or above that carries an
 * exception under the {@code org.jrdma} loggers (a handler or engine that caught a bug and logged it: QP_FATAL, a MAD
 * completion that threw, a receive check that threw) and a thread that died of an uncaught exception. {@link #take}
 * returns what was seen since the last call, so each input is judged on its own.
 */
public final class FuzzWatch extends Handler {
    /** Held: java.util.logging keeps loggers weakly, and a collected one would lose the handler. */
    private final Logger root = Logger.getLogger("org.jrdma");
    private final List<String> seen = new ArrayList<>();
    private final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();

    /** Starts watching: the handler on {@code org.jrdma} and the default uncaught exception handler. */
    public FuzzWatch() {
        root.addHandler(this);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> add("thread " + t.getName() + " died: " + e));
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= Level.WARNING.intValue() && r.getThrown() != null) {
            add(r.getLoggerName() + ": " + r.getMessage() + ": " + r.getThrown());
        }
    }

    private synchronized void add(String what) {
        seen.add(what);
    }

    /** What was seen since the last call (empty: nothing went wrong). */
    public synchronized List<String> take() {
        List<String> out = List.copyOf(seen);
        seen.clear();
        return out;
    }

    @Override
    public void flush() {
    }

    /** Stops watching; the previous default uncaught exception handler is back. */
    @Override
    public void close() {
        root.removeHandler(this);
        Thread.setDefaultUncaughtExceptionHandler(previous);
    }
}
