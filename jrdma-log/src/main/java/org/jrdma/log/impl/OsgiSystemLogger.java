package org.jrdma.log.impl;

import java.util.ResourceBundle;

import org.jrdma.log.finder.MessageText;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.Logger;

/**
 * A {@link System.Logger} on an OSGi 1.4 {@link Logger}: levels map one to one (ALL and TRACE to TRACE,
 * WARNING to WARN), and {@link #isLoggable} asks the Log Service, so the levels set through Log Admin
 * (etc/org.osgi.service.log.admin*.cfg) decide which records the call sites build at all; it keeps the
 * answer until the {@link LevelClock} ticks.
 */
final class OsgiSystemLogger implements System.Logger {

    private final Logger logger;
    private final LevelClock clock;
    /** The finest level the Log Service lets through, as of {@link #tick}. */
    private volatile LogLevel enabled;
    private volatile int tick;

    OsgiSystemLogger(Logger logger, LevelClock clock) {
        this.logger = logger;
        this.clock = clock;
    }

    private LogLevel enabled() {
        int now = clock.now();
        LogLevel e = enabled;
        if (e == null || tick != now) {
            e = ask();
            enabled = e;
            tick = now;
        }
        return e;
    }

    private LogLevel ask() {
        if (logger.isTraceEnabled()) {
            return LogLevel.TRACE;
        } else if (logger.isDebugEnabled()) {
            return LogLevel.DEBUG;
        } else if (logger.isInfoEnabled()) {
            return LogLevel.INFO;
        } else if (logger.isWarnEnabled()) {
            return LogLevel.WARN;
        }
        return logger.isErrorEnabled() ? LogLevel.ERROR : LogLevel.AUDIT;
    }

    @Override
    public String getName() {
        return logger.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return switch (level) {
            case ALL, TRACE -> enabled().implies(LogLevel.TRACE);
            case DEBUG -> enabled().implies(LogLevel.DEBUG);
            case INFO -> enabled().implies(LogLevel.INFO);
            case WARNING -> enabled().implies(LogLevel.WARN);
            case ERROR -> enabled().implies(LogLevel.ERROR);
            case OFF -> false;
        };
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        if (!isLoggable(level)) {
            return;
        }
        String text = MessageText.localized(bundle, msg);
        // "{}" with the text as its argument: the Logger's own placeholders must not touch the text
        Object[] args = thrown == null ? new Object[] { text } : new Object[] { text, thrown };
        switch (level) {
            case ALL, TRACE -> logger.trace("{}", args);
            case DEBUG -> logger.debug("{}", args);
            case INFO -> logger.info("{}", args);
            case WARNING -> logger.warn("{}", args);
            case ERROR -> logger.error("{}", args);
            case OFF -> { }
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (!isLoggable(level)) {
            return;
        }
        log(level, null, MessageText.format(bundle, format, params), (Throwable) null);
    }
}
