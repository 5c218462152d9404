package org.jrdma.hw.rxe.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.Map;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.junit.jupiter.api.Test;

/** The ConfigAdmin-driven component: activate with a configuration, deactivate removes the device. */
class RxeDriverTest {
    static RxeConfig config(Map<String, Object> values) {
        return (RxeConfig) Proxy.newProxyInstance(RxeConfig.class.getClassLoader(), new Class<?>[] {RxeConfig.class},
                (p, m, a) -> {
                    Object v = values.get(m.getName());
                    return v != null ? v : m.getDefaultValue();
                });
    }

    @Test
    void configurationCreatesAndDeactivationRemoves() {
        IbCore core = IbCore.newInstance();
        RxeDriver d = new RxeDriver();
        d.core = core;
        d.activate(config(Map.of("netdev", "lo", "addr", "127.0.0.2", "mtu", 9000)));
        IbDevice dev = core.devices().get(0);
        assertTrue(dev.name().startsWith("rxe"), dev.name());
        assertEquals(Gid.parse("::ffff:127.0.0.2"), dev.queryGid(1, 0));
        assertEquals(Mtu.MTU_4096, dev.queryPort(1).activeMtu());
        d.deactivate();
        assertTrue(core.devices().isEmpty());
        RxeLinkOpsTest.assertNoThreads();
        RxeDriver bad = new RxeDriver();
        bad.core = core;
        assertThrows(RuntimeException.class, () -> bad.activate(config(Map.of("netdev", ""))));
    }
}
