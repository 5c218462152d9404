package org.jrdma.log.finder;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The {@link System.LoggerFinder} of a service container: the JDK loads it from the system class path
 * ({@code META-INF/services}; {@code ./jrdma serve} puts this jar beside {@code jrdma.jar}), so every
 * {@code System.getLogger(name)} of every bundle gets a {@link SwitchingLogger}. While the jrdma-log bundle
 * runs, it hands this finder a factory ({@link #accept}) that makes OSGi Log Service loggers; before and after,
 * records go to stderr.
 * <p>
 * The finder lives outside the framework, so it and the bundle share only JDK types: the bundle finds it with
 * {@code System.LoggerFinder.getLoggerFinder()}, sees a {@link Consumer}, and passes a {@link BiFunction} from
 * (logger name, caller's module) to a {@link System.Logger}. The module's class loader tells the bundle.
 */
public final class JrdmaLoggerFinder extends System.LoggerFinder
        implements Consumer<BiFunction<String, Module, System.Logger>> {

    private volatile Target target = new Target(null, 0);

    /** The installed factory ({@code null}: stderr) and a generation that invalidates cached loggers. */
    record Target(BiFunction<String, Module, System.Logger> factory, int generation) {
    }

    @Override
    public System.Logger getLogger(String name, Module module) {
        return new SwitchingLogger(Objects.requireNonNull(name), Objects.requireNonNull(module), this);
    }

    /** Installs the factory of the Log Service bridge; {@code null} goes back to stderr. */
    @Override
    public synchronized void accept(BiFunction<String, Module, System.Logger> factory) {
        target = new Target(factory, target.generation() + 1);
    }

    Target target() {
        return target;
    }
}
