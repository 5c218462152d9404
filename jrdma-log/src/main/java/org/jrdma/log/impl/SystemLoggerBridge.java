package org.jrdma.log.impl;

import java.util.function.BiFunction;
import java.util.function.Consumer;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleReference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * The factory the jrdma-log bundle hands to the {@code JrdmaLoggerFinder}: a {@code System.getLogger(name)}
 * of a bundle's class becomes the Log Service logger {@code name} of that bundle (its unnamed module's class
 * loader is the bundle's), so each record carries its bundle and logger name and Log Admin levels per bundle
 * apply. Callers outside bundles (the JDK, the launcher's class path) log as the system bundle.
 */
final class SystemLoggerBridge implements BiFunction<String, Module, System.Logger> {

    /** The class of the finder, which lives outside the framework: compared by name. */
    static final String FINDER_CLASS = "org.jrdma.log.finder.JrdmaLoggerFinder";

    private final LoggerFactory factory;
    private final Bundle fallback;
    private final LevelClock clock;

    SystemLoggerBridge(LoggerFactory factory, Bundle fallback, LevelClock clock) {
        this.factory = factory;
        this.fallback = fallback;
        this.clock = clock;
    }

    @Override
    public System.Logger apply(String name, Module module) {
        return new OsgiSystemLogger(factory.getLogger(bundleOf(module), name, Logger.class), clock);
    }

    Bundle bundleOf(Module module) {
        ClassLoader cl = module.getClassLoader();
        if (cl instanceof BundleReference ref && ref.getBundle() != null) {
            return ref.getBundle();
        }
        return fallback;
    }

    /** The JVM's finder when it is ours (./jrdma serve), else {@code null} (batch mode: the JDK's default). */
    @SuppressWarnings("unchecked")
    static Consumer<BiFunction<String, Module, System.Logger>> installedFinder() {
        System.LoggerFinder f = System.LoggerFinder.getLoggerFinder();
        if (f instanceof Consumer<?> c && f.getClass().getName().equals(FINDER_CLASS)) {
            return (Consumer<BiFunction<String, Module, System.Logger>>) c;
        }
        return null;
    }
}
