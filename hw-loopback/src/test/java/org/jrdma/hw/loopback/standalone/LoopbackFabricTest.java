package org.jrdma.hw.loopback.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.Test;

/** The exported factory: devices on a private fabric, registered with the caller's core, unplugged on close. */
class LoopbackFabricTest {
    /** Records its callbacks; allocates a PD per device and frees it in remove. */
    static final class Client implements IbClient {
        final List<String> calls = new ArrayList<>();

        @Override
        public String name() {
            return "rec";
        }

        @Override
        public void add(IbDevice d) {
            calls.add("add " + d.name());
            d.setClientData(this, d.allocPd(this));
        }

        @Override
        public void remove(IbDevice d, Object data) {
            calls.add("remove " + d.name());
            ((org.jrdma.ib.core.ProtectionDomain) data).dealloc();
        }
    }

    @Test
    void devicesComeUpActiveWithLidsOnAFabricOfTheirOwn() {
        IbCore core = IbCore.newInstance();
        Client c = new Client();
        core.registerClient(c);
        try (LoopbackFabric f = LoopbackFabric.open(core); LoopbackFabric other = LoopbackFabric.open(IbCore.newInstance())) {
            IbDevice lo0 = f.add("lo%d", 2);
            IbDevice lo1 = f.add("lo%d", 1);
            IbDevice alone = other.add("lo%d", 1);
            assertEquals(List.of("lo0", "lo1"), List.of(lo0.name(), lo1.name()));
            assertEquals(List.of(lo0, lo1), f.devices());
            assertEquals(PortState.ACTIVE, lo0.queryPort(2).state());
            assertEquals(List.of(1, 2, 3), List.of(lo0.queryPort(1).lid(), lo0.queryPort(2).lid(), lo1.queryPort(1).lid()));
            assertEquals(1, alone.queryPort(1).lid()); // its own fabric: LIDs from 1 again
            assertEquals(List.of("add lo0", "add lo1"), c.calls);
        }
        assertEquals(List.of("add lo0", "add lo1", "remove lo1", "remove lo0"), c.calls); // last added first
        assertEquals(List.of(), core.devices());
    }

    @Test
    void removeIsAHotUnplugWithTheCoresReport() {
        IbCore core = IbCore.newInstance();
        Client c = new Client();
        core.registerClient(c);
        try (LoopbackFabric f = LoopbackFabric.open(core)) {
            IbDevice lo0 = f.add("lo%d", 1);
            UnregisterReport r = f.remove(lo0);
            assertEquals(List.of("rec"), r.clientsRemoved());
            assertEquals(List.of(), r.leaked());
            assertNull(f.remove(lo0)); // not ours any more
            assertEquals(List.of(), f.devices());
        }
    }

    @Test
    void badArgumentsArePreciseErrors() {
        assertEquals("hw-loopback: core is null",
                assertThrows(IllegalArgumentException.class, () -> LoopbackFabric.open(null)).getMessage());
        LoopbackFabric f = LoopbackFabric.open(IbCore.newInstance());
        assertEquals("hw-loopback: ports must be 1..16, not 17",
                assertThrows(IllegalArgumentException.class, () -> f.add("lo%d", 17)).getMessage());
        f.close();
        assertEquals("hw-loopback: fabric closed", assertThrows(IllegalStateException.class, () -> f.add("lo%d", 1)).getMessage());
    }
}
