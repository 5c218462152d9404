package org.jrdma.launcher;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.annotation.bundle.Header;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Batch mode of {@code ./jrdma}: when the framework property {@value #COMMAND_PROPERTY} is set, waits until the
 * container has started and settled, runs that Gogo command line in a new session, and exits the JVM with the
 * command's status (0, the {@code CommandFailure.exitStatus()} of a failed jrdma command, or 1 for any other
 * error; see {@link Failure}). Without the property (interactive mode) it does nothing.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class BatchLauncher implements BundleActivator {

    /** The Gogo command line to run (several commands may be joined with {@code ;}). */
    public static final String COMMAND_PROPERTY = "jrdma.command";
    /**
     * The file descriptor number to which the command's standard output goes. {@code ./jrdma} starts the
     * JVM with {@code 3>&1 1>&2} and sets this to 3: then only the command writes to the real stdout, and
     * whatever else prints to {@code System.out} (Felix's log, bundle activators) ends up on stderr.
     * Unset: file descriptor 1.
     */
    public static final String STDOUT_FD_PROPERTY = "jrdma.stdout.fd";
    /** When {@code true}, failures also print their stack trace on stderr. */
    public static final String TRACE_PROPERTY = "jrdma.trace";

    /** How long the service registry and the bundles must have been quiet before the command runs. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The longest wait for the registry to become quiet. */
    static final long QUIET_MAX_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Without a start level event, how long to wait before accepting a settled framework. */
    static final long STARTUP_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The longest wait for the start levels to be reached and the bundles to be started. */
    static final long STARTUP_MAX_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** The longest time that stopping the framework at exit may take before the JVM is halted. */
    static final long EXIT_MAX_MILLIS = 3000;

    private BundleContext context;
    private Bundle systemBundle;
    private boolean trace;
    private String stdoutFd;
    private volatile Thread worker;
    private volatile long lastEvent = System.nanoTime();
    private volatile boolean startLevelReached;

    private final FrameworkListener frameworkListener = this::frameworkEvent;
    private final BundleListener bundleListener = e -> lastEvent = System.nanoTime();
    private final ServiceListener serviceListener = e -> lastEvent = System.nanoTime();

    @Override
    public void start(BundleContext context) {
        String line = context.getProperty(COMMAND_PROPERTY);
        if (line == null) {
            return; // interactive mode: the Gogo shell owns the console
        }
        this.context = context;
        this.systemBundle = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        this.trace = Boolean.parseBoolean(context.getProperty(TRACE_PROPERTY));
        this.stdoutFd = context.getProperty(STDOUT_FD_PROPERTY);
        context.addFrameworkListener(frameworkListener);
        context.addBundleListener(bundleListener);
        context.addServiceListener(serviceListener);
        Thread t = new Thread(() -> run(line), "jrdma batch command");
        t.setDaemon(true);
        worker = t;
        t.start();
    }

    @Override
    public void stop(BundleContext context) {
        Thread t = worker;
        worker = null;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
        }
    }

    private void frameworkEvent(FrameworkEvent event) {
        lastEvent = System.nanoTime();
        switch (event.getType()) {
            case FrameworkEvent.STARTED:
            case FrameworkEvent.STARTLEVEL_CHANGED:
                startLevelReached = true;
                break;
            default:
                break;
        }
    }

    private void run(String line) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        PrintStream out = new PrintStream(stdout(err), true);
        int status;
        try {
            try {
                awaitStartup();
            } catch (IllegalStateException e) { // our BundleContext became invalid
                err.println("jrdma: the container stopped before the command could run");
                exit(1, out, err);
                return;
            }
            status = execute(line, out, err);
        } catch (InterruptedException e) {
            return; // the bundle or the framework is stopping: nothing to do any more
        } catch (Throwable t) {
            String m = Failure.of(t).message();
            if (!m.isEmpty()) {
                err.println(m);
            }
            if (trace) {
                t.printStackTrace(err);
            }
            status = 1;
        }
        exit(status, out, err);
    }

    /** The command's standard output: the file descriptor named by {@value #STDOUT_FD_PROPERTY}, else fd 1. */
    private OutputStream stdout(PrintStream err) {
        String property = stdoutFd;
        if (property == null || property.isBlank()) {
            return new FileOutputStream(FileDescriptor.out);
        }
        int fd;
        try {
            fd = Integer.parseInt(property.trim());
        } catch (NumberFormatException e) {
            err.println("jrdma: ignoring " + STDOUT_FD_PROPERTY + "=" + property + " (not a number)");
            return new FileOutputStream(FileDescriptor.out);
        }
        try {
            // The very same open file description (shared offset, append mode, sockets...): needs
            // --add-opens java.base/java.io=ALL-UNNAMED, which ./jrdma passes.
            FileDescriptor descriptor = new FileDescriptor();
            Field field = FileDescriptor.class.getDeclaredField("fd");
            field.setAccessible(true);
            field.setInt(descriptor, fd);
            return new FileOutputStream(descriptor);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // fall back to reopening it (fine for a terminal or a pipe)
        }
        try {
            return new FileOutputStream("/proc/self/fd/" + fd, true);
        } catch (IOException | RuntimeException e) {
            err.println("jrdma: cannot write to file descriptor " + fd + " (" + e.getMessage()
                    + "); the command's output goes to file descriptor 1");
            return new FileOutputStream(FileDescriptor.out);
        }
    }

    // --- waiting for the container -------------------------------------------------------------

    private void awaitStartup() throws InterruptedException {
        // Normally the framework reports reaching its beginning start level (STARTLEVEL_CHANGED) right
        // after the last level with bundles, ours. Without that event (no start levels in the bndrun),
        // accept a framework whose bundles have all been started, after a grace period.
        long begin = System.nanoTime();
        while (!startLevelReached) {
            long waited = System.nanoTime() - begin;
            if (waited >= STARTUP_MAX_NANOS || (waited >= STARTUP_GRACE_NANOS && settled())) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        // DS components, ConfigAdmin-created instances and late Gogo commands register services
        // asynchronously: wait for the registry to be quiet for a moment.
        long quietBegin = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            if (now - lastEvent >= QUIET_NANOS || now - quietBegin >= QUIET_MAX_NANOS) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /**
     * The framework is active, its start level is at least that of every bundle marked for starting, and
     * no bundle is starting right now. (A bundle whose activator failed is not active and counts as done.)
     */
    private boolean settled() {
        if (systemBundle.getState() != Bundle.ACTIVE) {
            return false;
        }
        int activeLevel = systemBundle.adapt(FrameworkStartLevel.class).getStartLevel();
        for (Bundle b : context.getBundles()) {
            if (b.getBundleId() == 0 || b.equals(context.getBundle()) || isFragment(b)) {
                continue;
            }
            BundleStartLevel bsl = b.adapt(BundleStartLevel.class);
            if (bsl == null) {
                continue;
            }
            if (b.getState() == Bundle.STARTING && !bsl.isActivationPolicyUsed()) {
                return false;
            }
            if (bsl.isPersistentlyStarted() && bsl.getStartLevel() > activeLevel) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFragment(Bundle b) {
        BundleRevision revision = b.adapt(BundleRevision.class);
        return revision != null && (revision.getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
    }

    // --- running the command -------------------------------------------------------------------

    private int execute(String line, PrintStream out, PrintStream err) throws InterruptedException {
        ServiceTracker<CommandProcessor, CommandProcessor> tracker = new ServiceTracker<>(context, CommandProcessor.class, null);
        tracker.open();
        try {
            CommandProcessor processor = tracker.waitForService(5000);
            if (processor == null) {
                err.println("jrdma: the Gogo command processor is not available");
                return 1;
            }
            // Like the Gogo shell: the real stdio, never System.in/out/err, which Gogo replaces by its
            // per-thread multiplexers (a session writing into them would loop back into itself).
            CommandSession session = processor.createSession(new FileInputStream(FileDescriptor.in), out,
                    new FileOutputStream(FileDescriptor.err));
            try {
                prepare(session);
                Object result;
                try {
                    result = session.execute(line);
                } catch (Throwable t) {
                    return failure(t, err);
                }
                if (result != null) {
                    out.println(session.format(result, Converter.INSPECT));
                }
                return 0;
            } finally {
                flush(out, err);
                session.close();
            }
        } finally {
            try {
                tracker.close();
            } catch (IllegalStateException e) {
                // the framework is stopping (e.g. the command was 'stop 0')
            }
        }
    }

    /** What the interactive login shell's gosh_profile sets up, so that batch commands see the same names. */
    private static void prepare(CommandSession session) {
        session.put("SCOPE", "gogo:*");
        for (String setup : new String[] {
            "addcommand context ${.context}",
            "addcommand system (((${.context} bundles) 0) loadclass java.lang.System)" }) {
            try {
                session.execute(setup);
            } catch (Exception e) {
                // optional conveniences only
            }
        }
    }

    private int failure(Throwable t, PrintStream err) {
        Failure failure = Failure.of(t);
        if (!failure.message().isEmpty()) {
            err.println(failure.message());
        }
        if (trace) {
            t.printStackTrace(err);
        }
        return failure.status();
    }

    // --- leaving -------------------------------------------------------------------------------

    private void exit(int status, PrintStream out, PrintStream err) {
        flush(out, err);
        // Whatever happens during the shutdown, the JVM goes away with our status.
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(EXIT_MAX_MILLIS);
            } catch (InterruptedException e) {
                // halt anyway
            }
            flush(out, err);
            Runtime.getRuntime().halt(status);
        }, "jrdma exit watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        // Stop the framework cleanly from a shutdown hook: the status of the first System.exit call wins,
        // so the launcher's own exit on framework stop cannot replace ours.
        if (systemBundle instanceof Framework) {
            Framework framework = (Framework) systemBundle;
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        framework.stop();
                        framework.waitForStop(EXIT_MAX_MILLIS);
                    } catch (Exception e) {
                        // best effort
                    }
                }, "jrdma framework stop"));
            } catch (IllegalStateException e) {
                // already shutting down
            }
        }
        System.exit(status);
    }

    private static void flush(OutputStream... streams) {
        for (OutputStream s : streams) {
            try {
                s.flush();
            } catch (Exception e) {
                // ignore
            }
        }
        System.out.flush();
        System.err.flush();
    }
}
