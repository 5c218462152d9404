package org.jrdma.log.impl;

import java.text.MessageFormat;
import java.util.ResourceBundle;

import org.osgi.service.log.Logger;

/**
 * A {@link System.Logger} on an OSGi 1.4 {@link Logger}: levels map one to one (ALL and TRACE to TRACE,
 * WARNING to WARN), and {@link #isLoggable} asks the Log Service, so the levels set through Log Admin
 * (etc/org.osgi.service.log.admin*.cfg) decide which records the call sites build at all.
 */
final class OsgiSystemLogger implements System.Logger {

    private final Logger logger;

    OsgiSystemLogger(Logger logger) {
        this.logger = logger;
    }

    @Override
    public String getName() {
        return logger.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return switch (level) {
            case ALL, TRACE -> logger.isTraceEnabled();
            case DEBUG -> logger.isDebugEnabled();
            case INFO -> logger.isInfoEnabled();
            case WARNING -> logger.isWarnEnabled();
            case ERROR -> logger.isErrorEnabled();
            case OFF -> false;
        };
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        String text = localized(bundle, msg);
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
        String f = localized(bundle, format);
        String text = params == null || params.length == 0 || f == null ? f : MessageFormat.format(f, params);
        log(level, null, text, (Throwable) null);
    }

    private static String localized(ResourceBundle bundle, String msg) {
        return bundle != null && msg != null && bundle.containsKey(msg) ? bundle.getString(msg) : msg;
    }
}
