package org.jrdma.log.impl;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import org.jrdma.log.shell.LogCommands;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.log.admin.LoggerAdmin;
import org.osgi.service.log.admin.LoggerContext;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * Starts the container's logging: the listener on the Log Service (ring, file, stderr: {@link LogSink}), the
 * System.Logger bridge when the JVM runs our finder, and the log:* commands. A service container (framework
 * property {@code jrdma.home}) writes {@code HOME/log/jrdma.log}, rolled at {@code jrdma.log.maxSize} bytes
 * (default 10 MiB) with {@code jrdma.log.keep} old files (default 5); batch mode prints ERROR entries on stderr.
 */
public final class LogActivator implements BundleActivator {

    static final long DEFAULT_MAX_SIZE = 10L << 20;
    static final int DEFAULT_KEEP = 5;
    private static final String STOP_MARK = "jrdma-log: stopping, the log file closes";

    private final LogRing ring = new LogRing(2000);
    private final LevelClock clock = new LevelClock();
    private ScheduledExecutorService ticker;
    private RollingFile file;
    private LogSink sink;
    private ServiceTracker<LogReaderService, LogReaderService> readers;
    private ServiceTracker<LoggerFactory, LoggerFactory> factories;
    private ServiceRegistration<LogCommands> commands;

    @Override
    public void start(BundleContext context) throws IOException {
        String home = context.getProperty("jrdma.home");
        PrintStream stderr = System.err;
        if (home != null && !home.isBlank()) {
            file = new RollingFile(Path.of(home, "log", "jrdma.log"),
                    longProperty(context, "jrdma.log.maxSize", DEFAULT_MAX_SIZE),
                    (int) longProperty(context, "jrdma.log.keep", DEFAULT_KEEP));
            stderr = null;
        }
        LoggerAdmin admin = quietFrameworkEvents(context);
        sink = new LogSink(ring, file, stderr, e -> eventWanted(admin, e));
        readers = new ServiceTracker<>(context, LogReaderService.class, new Readers(context));
        readers.open();
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jrdma-log levels");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(clock::advance, 1, 1, TimeUnit.SECONDS);
        factories = new ServiceTracker<>(context, LoggerFactory.class, new Bridge(context, clock));
        factories.open();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "log");
        props.put("osgi.command.function", new String[] { "tail", "level" });
        commands = context.registerService(LogCommands.class, new LogCommands(context, ring::follow, clock::advance), props);
    }

    @Override
    public void stop(BundleContext context) throws IOException {
        commands.unregister();
        drain(context);
        factories.close();
        ticker.shutdownNow();
        readers.close();
        if (file != null) {
            file.close();
        }
    }

    /**
     * The Log Service hands entries to listeners on its own thread: log a mark and wait (2 s at most) until it
     * has come through, so the last entries of the stopping bundles are in the file before it closes.
     */
    private void drain(BundleContext context) {
        LoggerFactory lf = factories.getService();
        if (lf == null || readers.isEmpty()) {
            return;
        }
        Logger own = lf.getLogger(context.getBundle(), "org.jrdma.log", Logger.class);
        if (!own.isInfoEnabled()) {
            return;
        }
        CountDownLatch seen = new CountDownLatch(1);
        AutoCloseable f = ring.follow(0, line -> {
            if (line.endsWith(STOP_MARK)) {
                seen.countDown();
            }
        });
        try {
            own.info(STOP_MARK);
            seen.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ring.unfollow(f);
        }
    }

    /**
     * Felix Log records every service and bundle event at INFO/DEBUG (loggers {@code Events.*}): without a
     * root configuration (etc/org.osgi.service.log.admin.cfg replaces these levels whole), they log from WARN.
     */
    private static LoggerAdmin quietFrameworkEvents(BundleContext context) {
        ServiceReference<LoggerAdmin> ref = context.getServiceReference(LoggerAdmin.class);
        LoggerAdmin admin = ref == null ? null : context.getService(ref);
        if (admin != null) {
            LoggerContext root = admin.getLoggerContext(null);
            if (root.isEmpty()) {
                root.setLogLevels(Map.of("Events", LogLevel.WARN));
            }
        }
        return admin;   // held until this bundle stops: Felix Log starts before and stops after it
    }

    /** A framework event entry passes when the Log Admin level of its logger name lets it through. */
    static boolean eventWanted(LoggerAdmin admin, LogEntry e) {
        if (admin == null || !e.getLoggerName().startsWith("Events.")) {
            return true;
        }
        try {
            String bsn = e.getBundle() == null ? null : e.getBundle().getSymbolicName();
            LoggerContext c = bsn == null ? admin.getLoggerContext(null) : admin.getLoggerContext(bsn);
            return c.getEffectiveLogLevel(e.getLoggerName()).implies(e.getLogLevel());
        } catch (RuntimeException x) {
            return true;
        }
    }

    static long longProperty(BundleContext context, String name, long dflt) {
        String v = context.getProperty(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            System.err.println("jrdma-log: " + name + "=" + v + " is not a number; using " + dflt);
            return dflt;
        }
    }

    /** Listens on each LogReaderService, after replaying its history (what was logged before this bundle). */
    private final class Readers implements ServiceTrackerCustomizer<LogReaderService, LogReaderService> {
        private final BundleContext context;

        Readers(BundleContext context) {
            this.context = context;
        }

        @Override
        public LogReaderService addingService(ServiceReference<LogReaderService> ref) {
            LogReaderService r = context.getService(ref);
            if (r == null) {
                return null;
            }
            List<LogEntry> history = new ArrayList<>(Collections.list(r.getLog()));
            Collections.reverse(history);   // getLog() is newest first
            history.forEach(sink::logged);
            r.addLogListener(sink);
            return r;
        }

        @Override
        public void modifiedService(ServiceReference<LogReaderService> ref, LogReaderService r) {
        }

        @Override
        public void removedService(ServiceReference<LogReaderService> ref, LogReaderService r) {
            try {
                r.removeLogListener(sink);
            } catch (RuntimeException e) {
                // the Log Service is already gone
            }
            context.ungetService(ref);
        }
    }

    /** Installs the System.Logger bridge into our finder while a LoggerFactory is there. */
    private static final class Bridge implements ServiceTrackerCustomizer<LoggerFactory, LoggerFactory> {
        private final BundleContext context;
        private final LevelClock clock;
        private final Consumer<BiFunction<String, Module, System.Logger>> finder = SystemLoggerBridge.installedFinder();

        Bridge(BundleContext context, LevelClock clock) {
            this.context = context;
            this.clock = clock;
        }

        @Override
        public LoggerFactory addingService(ServiceReference<LoggerFactory> ref) {
            LoggerFactory lf = context.getService(ref);
            if (lf != null && finder != null) {
                finder.accept(new SystemLoggerBridge(lf, context.getBundle(0), clock));
            }
            return lf;
        }

        @Override
        public void modifiedService(ServiceReference<LoggerFactory> ref, LoggerFactory lf) {
        }

        @Override
        public void removedService(ServiceReference<LoggerFactory> ref, LoggerFactory lf) {
            if (finder != null) {
                finder.accept(null);
            }
            context.ungetService(ref);
        }
    }
}
