package org.jrdma.launcher;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;

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

    /**
     * The Unix-domain socket on which a service container accepts attached clients ({@code ./jrdma start} /
     * {@code serve}). Set: service mode (see {@link ServiceContainer}); the batch command
     * property is then ignored.
     */
    public static final String ATTACH_SOCKET_PROPERTY = "jrdma.attach.socket";
    /** The longest time that stopping the framework at exit may take before the JVM is halted. */
    static final long EXIT_MAX_MILLIS = 3000;

    private BundleContext context;
    private Bundle systemBundle;
    private boolean trace;
    private String stdoutFd;
    private volatile Thread worker;
    private StartupGate gate;
    private ServiceContainer service;
    private org.osgi.framework.ServiceRegistration<?> installCommand;
    private org.osgi.framework.ServiceRegistration<?> jvmCommand;

    @Override
    public void start(BundleContext context) {
        installCommand = org.jrdma.launcher.shell.InstallCommand.register(context); // install -s
        jvmCommand = org.jrdma.launcher.shell.JvmCommand.register(context); // resource figures (soak/run)
        this.trace = Boolean.parseBoolean(context.getProperty(TRACE_PROPERTY));
        String socket = context.getProperty(ATTACH_SOCKET_PROPERTY);
        if (socket != null && !socket.isBlank()) {
            gate = new StartupGate(context);
            service = ServiceContainer.start(context, gate, socket.trim(), trace);
            return;
        }
        String line = context.getProperty(COMMAND_PROPERTY);
        if (line == null) {
            return; // interactive mode: the Gogo shell owns the console
        }
        this.context = context;
        this.systemBundle = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        this.stdoutFd = context.getProperty(STDOUT_FD_PROPERTY);
        gate = new StartupGate(context);
        Thread t = new Thread(() -> run(line), "jrdma batch command");
        t.setDaemon(true);
        worker = t;
        t.start();
    }

    @Override
    public void stop(BundleContext context) {
        installCommand.unregister();
        jvmCommand.unregister();
        if (service != null) {
            service.close();
            service = null;
        }
        if (gate != null) {
            gate.close();
        }
        Thread t = worker;
        worker = null;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
        }
    }

    private void run(String line) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        PrintStream out = new PrintStream(stdout(err), true);
        int status;
        try {
            try {
                gate.await();
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

    // --- running the command -------------------------------------------------------------------

    private int execute(String line, PrintStream out, PrintStream err) throws InterruptedException {
        try (CommandRunner runner = new CommandRunner(context, new FileInputStream(FileDescriptor.in), out,
                new PrintStream(new FileOutputStream(FileDescriptor.err), true), trace)) {
            return runner.run(line);
        }
    }

    // --- leaving -------------------------------------------------------------------------------

    private void exit(int status, PrintStream out, PrintStream err) {
        CommandRunner.flush(out, err);
        // Whatever happens during the shutdown, the JVM goes away with our status.
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(EXIT_MAX_MILLIS);
            } catch (InterruptedException e) {
                // halt anyway
            }
            CommandRunner.flush(out, err);
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
}
