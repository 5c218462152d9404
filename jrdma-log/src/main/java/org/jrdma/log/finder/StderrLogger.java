package org.jrdma.log.finder;

import java.io.PrintStream;
import java.util.ResourceBundle;

/**
 * Where records go while no Log Service bridge is installed (the container starting or stopping): one line
 * {@code LEVEL name: message} on stderr, then the stack trace, from INFO up (as the JDK's default logger).
 */
final class StderrLogger implements System.Logger {

    private final String name;
    private final PrintStream err;

    StderrLogger(String name, PrintStream err) {
        this.name = name;
        this.err = err;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isLoggable(Level level) {
        return level != Level.OFF && level.getSeverity() >= Level.INFO.getSeverity();
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        if (!isLoggable(level)) {
            return;
        }
        synchronized (err) {
            err.println(level.getName() + " " + name + ": " + MessageText.localized(bundle, msg));
            if (thrown != null) {
                thrown.printStackTrace(err);
            }
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (isLoggable(level)) {
            log(level, null, MessageText.format(bundle, format, params), (Throwable) null);
        }
    }
}
