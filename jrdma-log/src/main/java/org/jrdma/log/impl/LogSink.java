package org.jrdma.log.impl;

import java.io.IOException;
import java.io.PrintStream;
import java.util.function.Predicate;

import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;

/**
 * The one listener on the Log Service: each entry becomes a line in the ring (log:tail), in the rolling file
 * (a service container) and, in batch mode, on stderr when it is an ERROR. Batch mode prints only errors
 * because that is what SCR printed on the console before the Log Service was there; the framework's own
 * event entries ({@code Events.*}) are left out, as the framework prints its errors itself.
 * <p>
 * Felix Log records framework events without asking the Log Admin levels; {@code wanted} applies them.
 */
final class LogSink implements LogListener {

    private final LogRing ring;
    private final RollingFile file;
    private final PrintStream stderr;
    private final Predicate<LogEntry> wanted;
    private volatile boolean fileFailed;

    /** {@code file} and {@code stderr} may each be {@code null}. */
    LogSink(LogRing ring, RollingFile file, PrintStream stderr, Predicate<LogEntry> wanted) {
        this.ring = ring;
        this.file = file;
        this.stderr = stderr;
        this.wanted = wanted;
    }

    @Override
    public void logged(LogEntry entry) {
        if (!wanted.test(entry)) {
            return;
        }
        String line = LogLine.format(entry);
        ring.add(line);
        if (file != null) {
            try {
                file.write(line);
            } catch (IOException e) {
                if (!fileFailed) {   // once: a full disk must not turn every entry into a second error
                    fileFailed = true;
                    System.err.println("jrdma-log: cannot write the log file: " + e);
                }
            }
        }
        if (stderr != null && entry.getLogLevel() == LogLevel.ERROR && !entry.getLoggerName().startsWith("Events.")) {
            stderr.println(line);
        }
    }
}
