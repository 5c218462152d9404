package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.annotation.Annotation;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.Test;

/** The configuration-driven SM: it starts when its device appears and stops when it goes. */
class SubnetManagerComponentTest {
    static SmConfig config(String device, int port, int sweep, int priority) {
        return new SmConfig() {
            public Class<? extends Annotation> annotationType() { return SmConfig.class; }
            public String device() { return device; }
            public int port() { return port; }
            public int sweepInterval() { return sweep; }
            public int priority() { return priority; }
        };
    }

    @Test
    void smFollowsItsDevice() throws Exception {
        try (ManagedIbFabric ib = new ManagedIbFabric()) {
            MadLayer mad = ib.mad();
            IbDevice b = ib.add(1);
            SubnetManagerComponent c = new SubnetManagerComponent();
            c.core = ib.core();
            c.mad = mad;
            assertThrows(IllegalArgumentException.class, () -> c.activate(config("", 1, 0, 0), mad));
            assertThrows(IllegalArgumentException.class, () -> c.activate(config("x", 1, 0, 16), mad));
            c.activate(config("lo1", 1, 0, 7), mad);
            assertNull(c.subnetManager(), "no lo1 yet");
            IbDevice a = ib.add(1);
            assertEquals("lo1", a.name());
            SubnetManager sm = c.subnetManager();
            assertNotNull(sm);
            assertEquals(PortState.ACTIVE, ManagedIbFabric.awaitActive(b, 1, 10_000), "the first sweep ran");
            assertEquals(a.queryPort(1).lid(), b.queryPort(1).smLid());
            assertEquals(7, sm.priority());
            ib.unplug(a);
            assertNull(c.subnetManager(), "stopped with its device");
            c.deactivate();
        }
    }
}
