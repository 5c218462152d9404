package org.jrdma.log.impl;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

import org.osgi.service.log.LogEntry;

/**
 * One log entry as text: {@code 2026-12-03 06:15:35.123 INFO  [hw-rxe] org.jrdma.hw.rxe: message}, then the
 * stack trace of its exception, if any, on the following lines.
 */
final class LogLine {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());

    private LogLine() {
    }

    static String format(LogEntry e) {
        String bsn = e.getBundle() == null ? "-" : String.valueOf(e.getBundle().getSymbolicName());
        return format(e.getTime(), e.getLogLevel().name(), bsn, e.getLoggerName(), e.getMessage(), e.getException());
    }

    static String format(long millis, String level, String bsn, String logger, String message, Throwable thrown) {
        StringBuilder b = new StringBuilder(128);
        b.append(TIME.format(Instant.ofEpochMilli(millis))).append(' ');
        b.append(level);
        b.append(" ".repeat(Math.max(1, 6 - level.length())));
        b.append('[').append(bsn).append("] ").append(logger).append(": ").append(message);
        if (thrown != null) {
            StringWriter w = new StringWriter();
            thrown.printStackTrace(new PrintWriter(w));
            String trace = w.toString();
            b.append(System.lineSeparator()).append(trace, 0, trace.length() - System.lineSeparator().length());
        }
        return b.toString();
    }
}
