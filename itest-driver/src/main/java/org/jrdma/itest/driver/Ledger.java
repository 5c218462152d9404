package org.jrdma.itest.driver;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.spi.DeviceListener;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.jrdma.itest.driver.api.DriverProbe;

/**
 * Static on purpose: it outlives the components (and a stop/start of the bundle), so the test can
 * check after a stop that everything the drivers allocated was destroyed.
 */
final class Ledger {
    static final long GUID = 0x0002c90300001000L;

    private static final List<TestDriver> drivers = new ArrayList<>();
    private static final List<RegisteredDevice> registered = new ArrayList<>();
    private static final List<UnregisterReport> reports = new ArrayList<>();

    private Ledger() {
    }

    /** A new fake HCA and its registration; the listener keeps the ledger. */
    static synchronized DeviceRegistration newDevice(String pattern) {
        TestDriver d = new TestDriver(2, LinkLayer.INFINIBAND, GUID);
        drivers.add(d);
        return d.registration(pattern).listener(new DeviceListener() {
            @Override
            public void registered(RegisteredDevice device) {
                synchronized (Ledger.class) {
                    registered.add(device);
                }
            }

            @Override
            public void unregistered(UnregisterReport report) {
                synchronized (Ledger.class) {
                    registered.removeIf(r -> r.device().name().equals(report.deviceName()));
                    reports.add(report);
                }
            }
        });
    }

    static final DriverProbe PROBE = new DriverProbe() {
        @Override
        public int liveDriverObjects() {
            synchronized (Ledger.class) {
                return drivers.stream().mapToInt(d -> d.live.get()).sum();
            }
        }

        @Override
        public int driversCreated() {
            synchronized (Ledger.class) {
                return drivers.size();
            }
        }

        @Override
        public List<String> registeredDevices() {
            synchronized (Ledger.class) {
                return registered.stream().map(r -> r.device().name()).toList();
            }
        }

        @Override
        public List<UnregisterReport> unregisterReports() {
            synchronized (Ledger.class) {
                return List.copyOf(reports);
            }
        }

        @Override
        public void clearReports() {
            synchronized (Ledger.class) {
                reports.clear();
            }
        }
    };
}
