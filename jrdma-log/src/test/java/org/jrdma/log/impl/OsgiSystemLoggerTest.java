package org.jrdma.log.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.osgi.service.log.Logger;

class OsgiSystemLoggerTest {

    final List<String> calls = new ArrayList<>();
    final List<String> asked = new ArrayList<>();
    final LevelClock clock = new LevelClock();
    final List<Object[]> args = new ArrayList<>();

    /** An OSGi Logger that records its calls; enabled for INFO and up, as the root context's INFO. */
    Logger recording(Set<String> enabled) {
        return (Logger) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Logger.class },
                (p, m, a) -> {
                    String n = m.getName();
                    if (n.startsWith("is") && n.endsWith("Enabled")) {
                        asked.add(n);
                        return enabled.contains(n);
                    }
                    if (n.equals("getName")) {
                        return "org.jrdma.hw.rxe";
                    }
                    calls.add(n + "(" + a[0] + ")");
                    args.add((Object[]) a[1]);   // the varargs of debug(String, Object...) and the like
                    return null;
                });
    }

    @Test
    void levelsMapOneToOneAndAskTheLogService() {
        OsgiSystemLogger l = new OsgiSystemLogger(recording(Set.of("isInfoEnabled", "isWarnEnabled", "isErrorEnabled")), clock);
        assertEquals("org.jrdma.hw.rxe", l.getName());
        assertFalse(l.isLoggable(System.Logger.Level.ALL));
        assertFalse(l.isLoggable(System.Logger.Level.TRACE));
        assertFalse(l.isLoggable(System.Logger.Level.DEBUG));
        assertTrue(l.isLoggable(System.Logger.Level.INFO));
        assertTrue(l.isLoggable(System.Logger.Level.WARNING));
        assertTrue(l.isLoggable(System.Logger.Level.ERROR));
        assertFalse(l.isLoggable(System.Logger.Level.OFF));
        OsgiSystemLogger debug = new OsgiSystemLogger(recording(Set.of("isDebugEnabled")), clock);
        assertTrue(debug.isLoggable(System.Logger.Level.DEBUG));
    }

    @Test
    void theTextIsAnArgumentSoItsBracesStayAndTheExceptionIsLast() {
        OsgiSystemLogger l = new OsgiSystemLogger(recording(Set.of("isInfoEnabled", "isWarnEnabled", "isErrorEnabled",
                "isDebugEnabled", "isTraceEnabled")), clock);
        RuntimeException boom = new RuntimeException("boom");
        l.log(System.Logger.Level.WARNING, "map {} \\{} kept");
        l.log(System.Logger.Level.ERROR, "engine failed", boom);
        l.log(System.Logger.Level.DEBUG, "rxe0: {0} QPs", 4);
        l.log(System.Logger.Level.TRACE, "t");
        l.log(System.Logger.Level.INFO, "i");
        l.log(System.Logger.Level.OFF, "never");
        assertEquals(List.of("warn({})", "error({})", "debug({})", "trace({})", "info({})"), calls);
        assertEquals(List.of("map {} \\{} kept"), Arrays.asList(args.get(0)));
        assertEquals("engine failed", args.get(1)[0]);
        assertSame(boom, args.get(1)[1]);
        assertEquals(List.of("rxe0: 4 QPs"), Arrays.asList(args.get(2)));
    }

    @Test
    void theLevelIsAskedOncePerClockTickNotPerCall() {
        java.util.Set<String> enabled = new java.util.HashSet<>(Set.of("isInfoEnabled", "isWarnEnabled", "isErrorEnabled"));
        OsgiSystemLogger l = new OsgiSystemLogger(recording(enabled), clock);
        for (int i = 0; i < 100; i++) {
            assertFalse(l.isLoggable(System.Logger.Level.DEBUG));
            assertTrue(l.isLoggable(System.Logger.Level.INFO));
        }
        int first = asked.size();
        assertTrue(first >= 1 && first <= 5, "one round of questions for 200 calls: " + asked);
        enabled.add("isDebugEnabled");   // as a .cfg in etc/ would
        assertFalse(l.isLoggable(System.Logger.Level.DEBUG), "kept until the clock ticks");
        assertEquals(first, asked.size());
        clock.advance();
        assertTrue(l.isLoggable(System.Logger.Level.DEBUG));
        assertTrue(l.isLoggable(System.Logger.Level.DEBUG));
        assertTrue(asked.size() - first >= 1 && asked.size() - first <= 5, "one more round: " + asked);
    }

    @Test
    void aFormatIsNotBuiltWhenTheLevelIsOff() {
        OsgiSystemLogger l = new OsgiSystemLogger(recording(Set.of("isInfoEnabled")), clock);
        l.log(System.Logger.Level.DEBUG, "rxe0: {0} QPs", 4);
        assertEquals(List.of(), calls);
    }
}
