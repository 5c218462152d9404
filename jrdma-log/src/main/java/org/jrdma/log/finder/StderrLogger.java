package org.jrdma.log.finder;

import java.io.PrintStream;
import java.text.MessageFormat;
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
            err.println(level.getName() + " " + name + ": " + localized(bundle, msg));
            if (thrown != null) {
                thrown.printStackTrace(err);
            }
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (isLoggable(level)) {
            log(level, bundle, format(bundle, format, params), (Throwable) null);
        }
    }

    static String localized(ResourceBundle bundle, String msg) {
        if (bundle != null && msg != null && bundle.containsKey(msg)) {
            return bundle.getString(msg);
        }
        return msg;
    }

    /** As the JDK's loggers: MessageFormat only when there are parameters. */
    static String format(ResourceBundle bundle, String format, Object... params) {
        String f = localized(bundle, format);
        return params == null || params.length == 0 || f == null ? f : MessageFormat.format(f, params);
    }
}
