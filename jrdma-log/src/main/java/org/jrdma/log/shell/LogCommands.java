package org.jrdma.log.shell;

import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.admin.LoggerAdmin;
import org.osgi.service.log.admin.LoggerContext;

/**
 * {@code log:tail [-n N] [-f]} (the last lines of the container's log, then new ones until Ctrl-C) and
 * {@code log:level [NAME [LEVEL|default]]} (the root Log Admin context's levels; a change made here lasts
 * until the container stops or etc/org.osgi.service.log.admin.cfg changes).
 */
public final class LogCommands {

    /** What a slow reader of {@code log:tail -f} may fall behind before lines are dropped (and counted). */
    static final int FOLLOW_QUEUE = 10_000;

    private final BundleContext context;
    private final BiFunction<Integer, Consumer<String>, AutoCloseable> follow;
    private final Runnable levelsChanged;

    /**
     * {@code follow}: the ring's follow(n, follower), handing the last n lines and then each new one;
     * {@code levelsChanged}: run after log:level changed a level (the System.Logger bridge asks again).
     */
    public LogCommands(BundleContext context, BiFunction<Integer, Consumer<String>, AutoCloseable> follow,
            Runnable levelsChanged) {
        this.context = context;
        this.follow = follow;
        this.levelsChanged = levelsChanged;
    }

    @Descriptor("print the last lines of the container's log (-f: then the new ones, until Ctrl-C)")
    public void tail(
            @Descriptor("number of lines") @Parameter(names = { "-n", "--lines" }, absentValue = "10") int n,
            @Descriptor("follow") @Parameter(names = { "-f", "--follow" }, presentValue = "true", absentValue = "false")
            boolean follow) throws Exception {
        if (n < 0) {
            throw new IllegalArgumentException("log:tail: -n " + n + ": a count of lines, 0 or more");
        }
        PrintStream out = System.out;
        BlockingQueue<String> q = new LinkedBlockingQueue<>(FOLLOW_QUEUE);
        AtomicLong dropped = new AtomicLong();
        try (AutoCloseable handle = this.follow.apply(n, line -> {
            if (!q.offer(line)) {
                dropped.incrementAndGet();
            }
        })) {
            print(q, out, dropped);
            while (follow) {
                String line = q.poll(500, TimeUnit.MILLISECONDS);   // Ctrl-C interrupts the wait
                if (line != null) {
                    out.println(line);
                    print(q, out, dropped);
                }
            }
        }
    }

    private static void print(BlockingQueue<String> q, PrintStream out, AtomicLong dropped) {
        for (String l; (l = q.poll()) != null;) {
            out.println(l);
        }
        long d = dropped.getAndSet(0);
        if (d > 0) {
            out.println("log:tail: " + d + " lines dropped (the reader fell behind)");
        }
        out.flush();
    }

    @Descriptor("list the log levels set in the root Log Admin context")
    public void level() {
        LoggerContext root = admin().getLoggerContext(null);
        Map<String, LogLevel> levels = new TreeMap<>(root.getLogLevels());
        System.out.println("ROOT " + root.getEffectiveLogLevel(org.osgi.service.log.Logger.ROOT_LOGGER_NAME)
                + (levels.containsKey(org.osgi.service.log.Logger.ROOT_LOGGER_NAME) ? "" : " (default)"));
        levels.forEach((name, level) -> {
            if (!name.equals(org.osgi.service.log.Logger.ROOT_LOGGER_NAME)) {
                System.out.println(name + " " + level);
            }
        });
    }

    @Descriptor("print the effective level of a logger (in the root context)")
    public void level(@Descriptor("logger name, or ROOT") String name) {
        System.out.println(name + " " + admin().getLoggerContext(null).getEffectiveLogLevel(name));
    }

    @Descriptor("set a logger's level in the root context (until restart); 'default' removes it")
    public void level(@Descriptor("logger name, or ROOT") String name,
            @Descriptor("AUDIT, ERROR, WARN, INFO, DEBUG, TRACE or default") String level) {
        LoggerContext root = admin().getLoggerContext(null);
        Map<String, LogLevel> levels = new TreeMap<>(root.getLogLevels());
        if (level.equalsIgnoreCase("default")) {
            levels.remove(name);
        } else {
            levels.put(name, parse(level));
        }
        root.setLogLevels(levels);
        levelsChanged.run();
        level(name);
    }

    static LogLevel parse(String level) {
        try {
            return LogLevel.valueOf(level.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("log:level: '" + level
                    + "' is not one of AUDIT, ERROR, WARN, INFO, DEBUG, TRACE, default");
        }
    }

    private LoggerAdmin admin() {
        ServiceReference<LoggerAdmin> ref = context.getServiceReference(LoggerAdmin.class);
        LoggerAdmin a = ref == null ? null : context.getService(ref);
        if (a == null) {
            throw new IllegalStateException("log:level: no LoggerAdmin service (is org.apache.felix.log running?)");
        }
        context.ungetService(ref);   // Felix Log's LoggerAdmin is a plain singleton: the object stays usable
        return a;
    }
}
