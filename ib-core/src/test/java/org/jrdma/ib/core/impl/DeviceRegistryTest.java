package org.jrdma.ib.core.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DeviceListener;
import org.jrdma.ib.core.spi.DeviceOps;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.junit.jupiter.api.Test;

class DeviceRegistryTest {
    final IbCore core = IbCore.newInstance();

    RegisteredDevice reg(String pattern) {
        return core.registrar().register(new TestDriver(1, LinkLayer.INFINIBAND, 0x1000).registration(pattern));
    }

    @Test
    void namesComeFromThePatternAndFreedNamesAreReused() {
        RegisteredDevice a = reg("rxe%d");
        RegisteredDevice b = reg("rxe%d");
        RegisteredDevice c = reg("rxe%d");
        assertEquals(List.of("rxe0", "rxe1", "rxe2"), core.devices().stream().map(IbDevice::name).toList());
        b.unregister();
        assertEquals("rxe1", reg("rxe%d").device().name(), "the lowest free number is reused");
        assertEquals("rxe3", reg("rxe%d").device().name());
        assertTrue(a.device().isRegistered() && c.device().isRegistered());
    }

    @Test
    void indexesGrowAndAreNotReusedAtOnce() {
        RegisteredDevice a = reg("lo%d");
        RegisteredDevice b = reg("lo%d");
        assertEquals(0, a.device().index());
        assertEquals(1, b.device().index());
        a.unregister();
        assertEquals(2, reg("lo%d").device().index());
        assertEquals("lo1", core.deviceByIndex(1).orElseThrow().name());
        assertTrue(core.deviceByIndex(0).isEmpty());
    }

    @Test
    void exactNamesMustBeFree() {
        reg("mlx5_0");
        VerbsException e = assertThrows(VerbsException.class, () -> reg("mlx5_0"));
        assertEquals(Errno.EEXIST, e.errno());
        assertTrue(e.getMessage().contains("mlx5_0 is already in use"), e.getMessage());
    }

    @Test
    void invalidNamesAreRefused() {
        for (String bad : List.of("", "a/b", "a b", "x:y", "..", "a%db%d", "%s", "n".repeat(64))) {
            VerbsException e = assertThrows(VerbsException.class, () -> reg(bad), bad);
            assertEquals(Errno.EINVAL, e.errno(), bad);
        }
    }

    @Test
    void renameAndLookup() {
        IbDevice d = reg("rxe%d").device();
        reg("rxe%d");
        core.renameDevice(d, "roce_a");
        assertEquals("roce_a", d.name());
        assertTrue(core.device("rxe0").isEmpty());
        assertEquals(d, core.device("roce_a").orElseThrow());
        assertEquals(Errno.EEXIST, assertThrows(VerbsException.class, () -> core.renameDevice(d, "rxe1")).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> core.renameDevice(d, "a b")).errno());
        assertEquals("rxe0", reg("rxe%d").device().name(), "the old name is free after a rename");
    }

    @Test
    void clientSeesExistingAndLaterDevicesAndRemovesInReverseClientOrder() {
        List<String> calls = new CopyOnWriteArrayList<>();
        RegisteredDevice d0 = reg("dev%d");
        RecordingClient a = new RecordingClient("a", calls);
        RecordingClient b = new RecordingClient("b", calls);
        core.registerClient(a);
        core.registerClient(b);
        RegisteredDevice d1 = reg("dev%d");
        assertEquals(List.of("a add:dev0", "b add:dev0", "a add:dev1", "b add:dev1"), calls);
        calls.clear();
        UnregisterReport r = d1.unregister();
        assertEquals(List.of("b remove:dev1", "a remove:dev1"), calls, "remove runs in reverse registration order");
        assertEquals(List.of("b", "a"), r.clientsRemoved());
        calls.clear();
        core.unregisterClient(a);
        assertEquals(List.of("a remove:dev0"), calls);
        calls.clear();
        d0.unregister();
        assertEquals(List.of("b remove:dev0"), calls);
        assertTrue(a.errors.isEmpty() && b.errors.isEmpty(), a.errors + " " + b.errors);
    }

    @Test
    void clientDataIsPerDeviceAndClient() {
        RecordingClient a = new RecordingClient("a");
        RecordingClient b = new RecordingClient("b");
        IbDevice d = reg("dev%d").device();
        core.registerClient(a);
        core.registerClient(b);
        assertEquals("a@dev0", d.getClientData(a));
        d.setClientData(b, 42);
        assertEquals(42, d.getClientData(b));
        IbClient stranger = new RecordingClient("stranger");
        assertNull(d.getClientData(stranger));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> d.setClientData(stranger, 1)).errno());
    }

    @Test
    void aClientThatFailsAddGetsNoRemove() {
        List<String> calls = new CopyOnWriteArrayList<>();
        IbClient failing = new RecordingClient("f", calls) {
            @Override
            public void add(IbDevice device) {
                calls.add("f add:" + device.name());
                throw new IllegalStateException("not for me");
            }
        };
        RegisteredDevice d = reg("dev%d");
        core.registerClient(failing);
        d.unregister();
        assertEquals(List.of("f add:dev0"), calls);
    }

    @Test
    void duplicateAndUnknownClients() {
        RecordingClient a = new RecordingClient("a");
        core.registerClient(a);
        assertEquals(Errno.EEXIST, assertThrows(VerbsException.class, () -> core.registerClient(a)).errno());
        core.unregisterClient(a);
        assertEquals(Errno.ENOENT, assertThrows(VerbsException.class, () -> core.unregisterClient(a)).errno());
    }

    @Test
    void missingMandatoryOpIsRefusedWithItsName() {
        DeviceOps noPoll = new DeviceOps() {
            private final TestDriver t = new TestDriver(1, LinkLayer.INFINIBAND, 1);
            @Override public org.jrdma.ib.core.DeviceAttr queryDevice() { return t.queryDevice(); }
            @Override public org.jrdma.ib.core.PortAttr queryPort(int p) { return t.queryPort(p); }
            @Override public org.jrdma.ib.core.spi.PortImmutable getPortImmutable(int p) { return t.getPortImmutable(p); }
            @Override public int queryPkey(int p, int i) { return 0xffff; }
            @Override public org.jrdma.ib.core.spi.DriverPd allocPd() { return t.allocPd(); }
            @Override public void deallocPd(org.jrdma.ib.core.spi.DriverPd pd) { }
            @Override public org.jrdma.ib.core.spi.DriverQp createQp(org.jrdma.ib.core.spi.QpContext c,
                    org.jrdma.ib.core.spi.DriverPd pd, org.jrdma.ib.core.QpInitAttr a, org.jrdma.ib.core.spi.DriverCq s,
                    org.jrdma.ib.core.spi.DriverCq r, org.jrdma.ib.core.spi.DriverSrq q) { return null; }
            @Override public void modifyQp(org.jrdma.ib.core.spi.DriverQp qp, org.jrdma.ib.core.QpAttr a) { }
            @Override public void destroyQp(org.jrdma.ib.core.spi.DriverQp qp) { }
            @Override public void postSend(org.jrdma.ib.core.spi.DriverQp qp, org.jrdma.ib.core.SendWr wr) { }
            @Override public void postRecv(org.jrdma.ib.core.spi.DriverQp qp, org.jrdma.ib.core.RecvWr wr) { }
            @Override public org.jrdma.ib.core.spi.DriverCq createCq(org.jrdma.ib.core.spi.CqContext c, int n, int v) { return null; }
            @Override public void destroyCq(org.jrdma.ib.core.spi.DriverCq cq) { }
            @Override public boolean reqNotifyCq(org.jrdma.ib.core.spi.DriverCq cq, org.jrdma.ib.core.CqNotify t, boolean r) { return false; }
            @Override public org.jrdma.ib.core.spi.DriverMr regUserMr(org.jrdma.ib.core.spi.DriverPd pd, java.nio.ByteBuffer b, long i, int a) { return null; }
            @Override public void deregMr(org.jrdma.ib.core.spi.DriverMr mr) { }
        };
        VerbsException e = assertThrows(VerbsException.class,
                () -> core.registrar().register(new DeviceRegistration("bad%d", "x", noPoll)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("is missing mandatory function pollCq"), e.getMessage());
        assertTrue(core.devices().isEmpty(), "a refused device is not listed");
    }

    @Test
    void listenerAndIdempotentUnregister() {
        List<String> seen = new CopyOnWriteArrayList<>();
        DeviceRegistration r = new TestDriver(1, LinkLayer.INFINIBAND, 7).registration("x%d").listener(new DeviceListener() {
            @Override
            public void registered(RegisteredDevice device) {
                seen.add("registered " + device.device().name());
            }

            @Override
            public void unregistered(UnregisterReport report) {
                seen.add("unregistered " + report.deviceName());
            }
        });
        RegisteredDevice d = core.registrar().register(r);
        UnregisterReport first = d.unregister();
        assertEquals(first, d.unregister());
        assertEquals(List.of("registered x0", "unregistered x0"), seen);
        assertFalse(d.device().isRegistered());
        assertEquals(Errno.ENODEV, assertThrows(VerbsException.class, () -> d.device().queryDevice()).errno());
    }

    @Test
    void portAndTableIndexesAreChecked() {
        IbDevice d = core.registrar().register(new TestDriver(2, LinkLayer.ETHERNET, 9).registration("p%d")).device();
        assertEquals(LinkLayer.ETHERNET, d.queryPort(2).linkLayer());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> d.queryPort(0)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> d.queryPort(3)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> d.queryGid(1, 4)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> d.queryPkey(1, 1)).errno());
        assertEquals(0xffff, d.queryPkey(1, 0));
    }
}
