package org.jrdma.launcher;

import java.util.concurrent.TimeUnit;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.framework.wiring.BundleRevision;

/**
 * Waits until the container has started and settled: its start level reached (or, without that event, every
 * bundle marked for starting started), then the service registry quiet for a moment, because DS components,
 * ConfigAdmin-created instances and late Gogo commands register asynchronously. Both the batch command and
 * the commands of attached clients run only after that, so they see the same container.
 */
final class StartupGate {

    /** How long the service registry and the bundles must have been quiet before the command runs. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The longest wait for the registry to become quiet. */
    static final long QUIET_MAX_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Without a start level event, how long to wait before accepting a settled framework. */
    static final long STARTUP_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The longest wait for the start levels to be reached and the bundles to be started. */
    static final long STARTUP_MAX_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final BundleContext context;
    private final Bundle systemBundle;
    private volatile long lastEvent = System.nanoTime();
    private volatile boolean startLevelReached;
    private volatile boolean open;

    private final FrameworkListener frameworkListener = this::frameworkEvent;
    private final BundleListener bundleListener = e -> lastEvent = System.nanoTime();
    private final ServiceListener serviceListener = e -> lastEvent = System.nanoTime();

    StartupGate(BundleContext context) {
        this.context = context;
        this.systemBundle = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        context.addFrameworkListener(frameworkListener);
        context.addBundleListener(bundleListener);
        context.addServiceListener(serviceListener);
    }

    /** Stops listening (the bundle is stopping). */
    void close() {
        try {
            context.removeFrameworkListener(frameworkListener);
            context.removeBundleListener(bundleListener);
            context.removeServiceListener(serviceListener);
        } catch (IllegalStateException e) {
            // the context is no longer valid: the listeners are gone with it
        }
    }

    private void frameworkEvent(FrameworkEvent event) {
        lastEvent = System.nanoTime();
        if (event.getType() == FrameworkEvent.STARTED || event.getType() == FrameworkEvent.STARTLEVEL_CHANGED) {
            startLevelReached = true;
        }
    }

    /**
     * Returns once the container has started and settled; at once after the first time.
     *
     * @throws IllegalStateException when the bundle context became invalid (the container is stopping)
     */
    void await() throws InterruptedException {
        if (open) {
            return;
        }
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
        long quietBegin = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            if (now - lastEvent >= QUIET_NANOS || now - quietBegin >= QUIET_MAX_NANOS) {
                open = true;
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
}
