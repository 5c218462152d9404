package org.jrdma.log.finder;

import java.util.ResourceBundle;

/**
 * What {@code System.getLogger} returns in a service container. Call sites keep it in a static final, so it
 * must follow the bridge as it comes and goes: each call looks at the finder's current target and rebuilds its
 * delegate when the generation changed. A delegate that fails (its bundle gone, the Log Service stopping) is
 * replaced by stderr for that record, never an exception at the call site.
 */
final class SwitchingLogger implements System.Logger {

    private final String name;
    private final Module module;
    private final JrdmaLoggerFinder finder;
    private final StderrLogger stderr;
    private volatile Cached cached;

    private record Cached(System.Logger logger, int generation) {
    }

    SwitchingLogger(String name, Module module, JrdmaLoggerFinder finder) {
        this.name = name;
        this.module = module;
        this.finder = finder;
        this.stderr = new StderrLogger(name, System.err);
    }

    @Override
    public String getName() {
        return name;
    }

    private System.Logger delegate() {
        JrdmaLoggerFinder.Target t = finder.target();
        Cached c = cached;
        if (c != null && c.generation() == t.generation()) {
            return c.logger();
        }
        System.Logger l = stderr;
        if (t.factory() != null) {
            try {
                l = t.factory().apply(name, module);
            } catch (RuntimeException e) {
                l = stderr;   // e.g. the caller's bundle is being uninstalled: this record to stderr, retry later
                cached = null;
                return l;
            }
        }
        cached = new Cached(l, t.generation());
        return l;
    }

    @Override
    public boolean isLoggable(Level level) {
        System.Logger d = delegate();
        try {
            return d.isLoggable(level);
        } catch (RuntimeException e) {
            return stderr.isLoggable(level);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        System.Logger d = delegate();
        try {
            d.log(level, bundle, msg, thrown);
        } catch (RuntimeException e) {
            stderr.log(level, bundle, msg, thrown);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        System.Logger d = delegate();
        try {
            d.log(level, bundle, format, params);
        } catch (RuntimeException e) {
            stderr.log(level, bundle, format, params);
        }
    }
}
