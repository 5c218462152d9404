package org.jrdma.launcher;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.launcher.attach.Signals;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;

/**
 * Service mode ({@code ./jrdma start} / {@code serve}): the attach socket, and the signals. The first TERM
 * or INT stops the framework in order (bundles stop, drivers unregister their devices, clients get
 * {@code remove}, outstanding work is flushed, sockets close) and the JVM exits 0, or 1 when that took more
 * than {@link #STOP_MAX_MILLIS}; a second signal halts at once (status 1). Never a hang.
 */
final class ServiceContainer implements AutoCloseable {

    /** How long an orderly stop may take before the JVM is halted anyway. */
    static final long STOP_MAX_MILLIS = 8000;
    static final String[] SIGNALS = { "TERM", "INT" };

    private final AttachServer server;
    private final Object[] previous = new Object[SIGNALS.length];
    private final AtomicInteger signals = new AtomicInteger();
    private final Bundle systemBundle;
    private AutoCloseable factoryConfigFiles;

    private ServiceContainer(BundleContext context, AttachServer server) {
        this.server = server;
        this.systemBundle = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
    }

    /** Opens the attach socket and takes over TERM and INT; on failure, says why on stderr and stops the container. */
    static ServiceContainer start(BundleContext context, StartupGate gate, String socket, boolean trace) {
        AttachServer server;
        try {
            server = AttachServer.open(Path.of(socket), context, gate, trace);
        } catch (IOException | RuntimeException e) {
            System.err.println("jrdma: cannot listen on " + socket + ": " + e.getMessage());
            ServiceContainer failed = new ServiceContainer(context, null);
            failed.exitAfterStop(1);
            return failed;
        }
        ServiceContainer c = new ServiceContainer(context, server);
        c.factoryConfigFiles = FactoryConfigFiles.register(context);
        for (int i = 0; i < SIGNALS.length; i++) {
            c.previous[i] = Signals.handle(SIGNALS[i], c::signal);
        }
        System.err.println("jrdma: service container up, attach socket " + socket);
        return c;
    }

    private void signal() {
        if (signals.incrementAndGet() > 1) {
            System.err.println("jrdma: second signal, halting now");
            Runtime.getRuntime().halt(1);
        }
        System.err.println("jrdma: stopping (a second signal forces)");
        exitAfterStop(0);
    }

    /**
     * Stops the framework on a new thread, then halts the JVM with {@code status} (1 if the stop overran). The bnd
     * launcher's main thread sees the framework stop too and calls {@code System.exit(117)}; a shutdown hook
     * then waits for our verdict and halts with it, so the exit status is ours whichever thread comes first.
     */
    private void exitAfterStop(int status) {
        CountDownLatch decided = new CountDownLatch(1);
        AtomicInteger verdict = new AtomicInteger(status);
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    decided.await(STOP_MAX_MILLIS + 1000, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    // halt with what we know
                }
                halt(verdict.get());
            }, "jrdma exit status"));
        } catch (IllegalStateException e) {
            // the JVM is already exiting
        }
        Thread t = new Thread(() -> {
            verdict.set(stopFramework(status));
            decided.countDown();
            halt(verdict.get());
        }, "jrdma stop");
        t.start();
    }

    private int stopFramework(int status) {
        if (!(systemBundle instanceof Framework)) {
            return status;
        }
        try {
            Framework fw = (Framework) systemBundle;
            fw.stop();
            if (fw.waitForStop(STOP_MAX_MILLIS).getType() == FrameworkEvent.WAIT_TIMEDOUT) {
                System.err.println("jrdma: the container did not stop within " + STOP_MAX_MILLIS + " ms");
                return 1;
            }
            return status;
        } catch (Exception e) {
            System.err.println("jrdma: stopping the container failed: " + e);
            return 1;
        }
    }

    private static void halt(int status) {
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    @Override
    public void close() {
        if (factoryConfigFiles != null) {
            try {
                factoryConfigFiles.close();
            } catch (Exception e) {
                // the framework is stopping
            }
        }
        if (server != null) {
            server.close();
        }
        for (int i = 0; i < SIGNALS.length; i++) {
            // While our stop runs, a second signal must still force: keep the handlers then.
            if (signals.get() == 0) {
                Signals.restore(SIGNALS[i], previous[i]);
            }
        }
    }
}
