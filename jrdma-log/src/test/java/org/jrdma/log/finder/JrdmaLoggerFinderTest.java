package org.jrdma.log.finder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.ServiceLoader;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JrdmaLoggerFinderTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedErr;
    private final JrdmaLoggerFinder finder = new JrdmaLoggerFinder();
    private final Module module = getClass().getModule();

    /** A System.Logger that records "LEVEL name: text" and lets everything from DEBUG up through. */
    static final class Recording implements System.Logger {
        final String name;
        final List<String> records;
        boolean fail;

        Recording(String name, List<String> records) {
            this.name = name;
            this.records = records;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            if (fail) {
                throw new IllegalStateException("the Log Service is gone");
            }
            return level.getSeverity() >= Level.DEBUG.getSeverity();
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            if (fail) {
                throw new IllegalStateException("the Log Service is gone");
            }
            records.add(level + " " + name + ": " + msg + (thrown == null ? "" : " / " + thrown.getMessage()));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            log(level, bundle, MessageText.format(bundle, format, params), (Throwable) null);
        }
    }

    @BeforeEach
    void captureStderr() {
        savedErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStderr() {
        System.setErr(savedErr);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void isServiceLoadedFromTheJar() {
        boolean found = ServiceLoader.load(System.LoggerFinder.class).stream()
                .anyMatch(p -> p.type() == JrdmaLoggerFinder.class);
        assertTrue(found, "META-INF/services/java.lang.System$LoggerFinder names JrdmaLoggerFinder");
    }

    @Test
    void withoutTheBridgeRecordsFromInfoUpGoToStderr() {
        System.Logger log = finder.getLogger("org.jrdma.hw.rxe", module);
        assertFalse(log.isLoggable(System.Logger.Level.DEBUG));
        assertTrue(log.isLoggable(System.Logger.Level.INFO));
        log.log(System.Logger.Level.DEBUG, "hidden");
        log.log(System.Logger.Level.WARNING, "rxe0: {0} dropped", 3);
        log.log(System.Logger.Level.ERROR, "engine failed", new IllegalStateException("boom"));
        String out = stderr();
        assertFalse(out.contains("hidden"), out);
        assertTrue(out.startsWith("WARNING org.jrdma.hw.rxe: rxe0: 3 dropped" + System.lineSeparator()
                + "ERROR org.jrdma.hw.rxe: engine failed" + System.lineSeparator()
                + "java.lang.IllegalStateException: boom"), out);
    }

    @Test
    void aLoggerKeptInAStaticFollowsTheBridgeAsItComesAndGoes() {
        System.Logger log = finder.getLogger("org.jrdma.ib.core", module);   // taken before the bridge exists
        log.log(System.Logger.Level.INFO, "before");
        List<String> records = new ArrayList<>();
        List<Module> modules = new ArrayList<>();
        finder.accept((name, m) -> {
            modules.add(m);
            return new Recording(name, records);
        });
        assertTrue(log.isLoggable(System.Logger.Level.DEBUG), "the bridge's levels now decide");
        log.log(System.Logger.Level.DEBUG, () -> "lazy " + 42);
        log.log(System.Logger.Level.WARNING, "client left {0} resources", 2);
        log.log(System.Logger.Level.ERROR, "failed", new RuntimeException("why"));
        assertEquals(List.of("DEBUG org.jrdma.ib.core: lazy 42", "WARNING org.jrdma.ib.core: client left 2 resources",
                "ERROR org.jrdma.ib.core: failed / why"), records);
        assertEquals(1, modules.size(), "one delegate per logger and bridge generation");
        assertSame(module, modules.get(0), "the caller's module reaches the bridge (it names the bundle)");
        finder.accept(null);
        log.log(System.Logger.Level.INFO, "after");
        assertEquals(3, records.size());
        assertEquals("INFO org.jrdma.ib.core: before" + System.lineSeparator() + "INFO org.jrdma.ib.core: after"
                + System.lineSeparator(), stderr());
    }

    @Test
    void aFailingBridgeSendsTheRecordToStderrInsteadOfThrowing() {
        System.Logger log = finder.getLogger("org.jrdma.ib.cm", module);
        finder.accept((name, m) -> {
            throw new IllegalArgumentException("bundle uninstalled");
        });
        log.log(System.Logger.Level.WARNING, "first");
        List<String> records = new ArrayList<>();
        Recording gone = new Recording("org.jrdma.ib.cm", records);
        finder.accept((name, m) -> gone);
        log.log(System.Logger.Level.WARNING, "second");
        gone.fail = true;
        log.log(System.Logger.Level.WARNING, "third");
        assertTrue(log.isLoggable(System.Logger.Level.WARNING));
        assertEquals(List.of("WARNING org.jrdma.ib.cm: second"), records);
        assertEquals("WARNING org.jrdma.ib.cm: first" + System.lineSeparator() + "WARNING org.jrdma.ib.cm: third"
                + System.lineSeparator(), stderr());
    }
}
