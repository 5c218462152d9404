package org.jrdma.ib.core.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.junit.jupiter.api.Test;

/**
 * Devices and clients come and go on several threads. Each client registration ("epoch") is its own
 * object recording every callback per device instance. The oracle: logical timestamps taken before
 * and after each register/unregister call tell which client epochs certainly overlapped which
 * device lifetimes; those pairs must see exactly add then remove. Every pair, overlapping or not,
 * may see only nothing or add-then-remove: never a second add, a remove without add, anything after
 * remove, or two callbacks of one client at once.
 */
class RegistryStressTest {
    static final int DEVICE_THREADS = 3;
    static final int CLIENT_THREADS = 3;
    static final int ROUNDS = 300;

    final IbCore core = IbCore.newInstance();
    final AtomicLong clock = new AtomicLong();
    final List<String> violations = new CopyOnWriteArrayList<>();

    /** One lifetime of a device or a client, in logical time. */
    static final class Life {
        long startBefore;
        long startAfter;
        long endBefore;
        long endAfter;
    }

    final Map<IbDevice, Life> deviceLives = new ConcurrentHashMap<>();
    final List<EpochClient> epochs = new CopyOnWriteArrayList<>();

    final class EpochClient implements IbClient {
        final String name;
        final Life life = new Life();
        final Map<IbDevice, List<String>> calls = new ConcurrentHashMap<>();
        final AtomicInteger inFlight = new AtomicInteger();

        EpochClient(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        private void enter(String what) {
            if (inFlight.incrementAndGet() != 1) {
                violations.add(name + ": overlapping callbacks at " + what);
            }
        }

        @Override
        public void add(IbDevice device) {
            enter("add " + device.name());
            List<String> l = calls.computeIfAbsent(device, d -> new CopyOnWriteArrayList<>());
            if (!l.isEmpty()) {
                violations.add(name + ": add after " + l + " on " + device.name());
            }
            l.add("add");
            ProtectionDomain pd = device.allocPd(this);
            device.setClientData(this, pd);
            inFlight.decrementAndGet();
        }

        @Override
        public void remove(IbDevice device, Object clientData) {
            enter("remove " + device.name());
            List<String> l = calls.computeIfAbsent(device, d -> new CopyOnWriteArrayList<>());
            if (!l.equals(List.of("add"))) {
                violations.add(name + ": remove after " + l + " on " + device.name());
            }
            l.add("remove");
            ProtectionDomain pd = (ProtectionDomain) clientData;
            if (pd == null || !pd.isValid()) {
                violations.add(name + ": client data lost on " + device.name());
            } else if (pd.id() % 2 == 0) {
                pd.dealloc(); // the other half leaks: ib-core must reap it
            }
            inFlight.decrementAndGet();
        }
    }

    @Test
    void noCallbackMissedDuplicatedOrLate() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(DEVICE_THREADS + CLIENT_THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<TestDriver> drivers = new CopyOnWriteArrayList<>();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < DEVICE_THREADS; t++) {
            fs.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < ROUNDS; i++) {
                    TestDriver drv = new TestDriver(1, LinkLayer.INFINIBAND, i);
                    drivers.add(drv);
                    Life life = new Life();
                    life.startBefore = clock.incrementAndGet();
                    RegisteredDevice d = core.registrar().register(drv.registration("stress%d"));
                    life.startAfter = clock.incrementAndGet();
                    deviceLives.put(d.device(), life);
                    Thread.yield();
                    life.endBefore = clock.incrementAndGet();
                    d.unregister();
                    life.endAfter = clock.incrementAndGet();
                }
                return null;
            }));
        }
        for (int t = 0; t < CLIENT_THREADS; t++) {
            int tt = t;
            fs.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < ROUNDS; i++) {
                    EpochClient c = new EpochClient("c" + tt + "." + i);
                    epochs.add(c);
                    c.life.startBefore = clock.incrementAndGet();
                    core.registerClient(c);
                    c.life.startAfter = clock.incrementAndGet();
                    Thread.yield();
                    c.life.endBefore = clock.incrementAndGet();
                    core.unregisterClient(c);
                    c.life.endAfter = clock.incrementAndGet();
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));

        assertEquals(List.of(), violations);
        int mustOverlap = 0;
        int pairs = 0;
        for (EpochClient c : epochs) {
            for (Map.Entry<IbDevice, Life> e : deviceLives.entrySet()) {
                Life d = e.getValue();
                List<String> l = c.calls.getOrDefault(e.getKey(), List.of());
                assertTrue(l.isEmpty() || l.equals(List.of("add", "remove")), c.name + " on " + e.getKey() + ": " + l);
                if (!l.isEmpty()) {
                    pairs++;
                }
                // both were certainly registered at the same time: the pair must have met
                boolean overlap = c.life.startAfter < d.endBefore && d.startAfter < c.life.endBefore;
                if (overlap) {
                    mustOverlap++;
                    assertEquals(List.of("add", "remove"), l, c.name + " missed " + e.getKey());
                }
                // certainly never registered at the same time: the pair must not have met
                boolean disjoint = c.life.endAfter < d.startBefore || d.endAfter < c.life.startBefore;
                if (disjoint) {
                    assertTrue(l.isEmpty(), c.name + " met " + e.getKey() + " outside its lifetime: " + l);
                }
            }
        }
        assertTrue(core.devices().isEmpty());
        for (TestDriver drv : drivers) {
            assertEquals(0, drv.live.get(), "every PD (dealloc'ed or leaked) was destroyed");
        }
        assertEquals(DEVICE_THREADS * ROUNDS, deviceLives.size());
        assertTrue(pairs > 0 && mustOverlap > 0, "the stress met something: pairs " + pairs + ", certain " + mustOverlap);
        System.out.printf("stress: %d devices x %d client epochs, %d met, %d certainly overlapping%n",
                deviceLives.size(), epochs.size(), pairs, mustOverlap);
    }
}
