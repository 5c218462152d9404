package org.jrdma.log.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleReference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

class SystemLoggerBridgeTest {

    static <T> T named(Class<T> type, String text) {
        return type.cast(Proxy.newProxyInstance(SystemLoggerBridgeTest.class.getClassLoader(), new Class<?>[] { type },
                (p, m, a) -> switch (m.getName()) {
                    case "toString", "getSymbolicName", "getName" -> text;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    default -> null;
                }));
    }

    /** A bundle's class loader, as Felix's: it is a BundleReference. */
    static final class BundleLoader extends ClassLoader implements BundleReference {
        final Bundle bundle;

        BundleLoader(Bundle bundle) {
            super(null);
            this.bundle = bundle;
        }

        @Override
        public Bundle getBundle() {
            return bundle;
        }
    }

    final List<String> asked = new ArrayList<>();
    final Bundle system = named(Bundle.class, "org.apache.felix.framework");
    final Bundle rxe = named(Bundle.class, "hw-rxe");

    LoggerFactory factory() {
        return (LoggerFactory) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { LoggerFactory.class },
                (p, m, a) -> {
                    if (m.getName().equals("getLogger") && a.length == 3 && a[0] instanceof Bundle b) {
                        asked.add(b.getSymbolicName() + " " + a[1] + " " + ((Class<?>) a[2]).getSimpleName());
                        return named(Logger.class, (String) a[1]);
                    }
                    throw new UnsupportedOperationException(m.toString());
                });
    }

    @Test
    void aBundlesModuleLogsAsThatBundleUnderItsLoggerName() {
        SystemLoggerBridge bridge = new SystemLoggerBridge(factory(), system, new LevelClock());
        Module m = new BundleLoader(rxe).getUnnamedModule();
        assertSame(rxe, bridge.bundleOf(m));
        System.Logger l = bridge.apply("org.jrdma.hw.rxe", m);
        assertEquals("org.jrdma.hw.rxe", l.getName());
        assertEquals(List.of("hw-rxe org.jrdma.hw.rxe Logger"), asked);
    }

    @Test
    void callersOutsideBundlesLogAsTheSystemBundle() {
        SystemLoggerBridge bridge = new SystemLoggerBridge(factory(), system, new LevelClock());
        assertSame(system, bridge.bundleOf(Object.class.getModule()));
        assertSame(system, bridge.bundleOf(getClass().getModule()));
        assertSame(system, bridge.bundleOf(new BundleLoader(null).getUnnamedModule()));
        bridge.apply("jdk.event.security", Object.class.getModule());
        assertEquals(List.of("org.apache.felix.framework jdk.event.security Logger"), asked);
    }

    @Test
    void theJdksDefaultFinderIsNotTakenForOurs() {
        // surefire's JVM runs with the JDK's finder unless ours is first on the class path; either way the
        // bridge only accepts a finder of our class
        System.LoggerFinder f = System.LoggerFinder.getLoggerFinder();
        if (!f.getClass().getName().equals(SystemLoggerBridge.FINDER_CLASS)) {
            assertNull(SystemLoggerBridge.installedFinder());
        } else {
            assertSame(f, SystemLoggerBridge.installedFinder());
        }
    }
}
