package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.junit.jupiter.api.Test;

/** {@link RxeDevice#close} ends the device's engine thread before it returns. */
class RxeDeviceCloseTest {
    /** Rounds of open / close: the thread outlives the executor's termination only briefly. */
    static final int ROUNDS = 200;

    /** The live threads named {@code name}. */
    static List<Thread> alive(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(name))
                .toList();
    }

    @Test
    void closeLeavesNoEngineThread() throws Exception {
        IbCore core = IbCore.newInstance();
        try (InMemoryWire wire = new InMemoryWire(1)) {
            for (int i = 0; i < ROUNDS; i++) {
                RxeDevice d = new RxeDevice("rxeclose%d", List.of(InetAddress.getByName("127.0.0.1")), 1500,
                        0x02_00_00_c1_00_00L | i, wire);
                wire.attach(d);
                d.register(core.registrar());
                String engine = "rxe-engine-" + Long.toHexString(d.nodeGuid);
                assertEquals(1, alive(engine).size(), "the engine runs from the start");
                Thread t = alive(engine).get(0);
                d.close();
                assertFalse(t.isAlive(), "engine thread alive after close, round " + i); // at once, before anything else
                wire.detach(d);
                assertEquals(List.of(), alive(engine), "engine thread alive after close, round " + i);
            }
        }
        assertTrue(core.devices().isEmpty());
    }
}
