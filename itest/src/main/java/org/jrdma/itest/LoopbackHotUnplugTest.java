package org.jrdma.itest;

import static org.jrdma.itest.Waits.SETTLE_MS;
import static org.jrdma.itest.Waits.TIMEOUT_MS;
import static org.jrdma.itest.Waits.await;
import static org.jrdma.itest.Waits.awaitValue;
import static org.jrdma.itest.Waits.settle;
import static org.jrdma.itest.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.common.service.ServiceAware;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Hot-unplug of the hw-loopback driver under traffic: a ULP ({@link TrafficClient}, registered
 * through the test bundle's IbCore service) runs SENDs, RECVs and RDMA WRITEs from port 1 to port 2
 * of lo0 (see {@link TrafficSession}), and the hw-loopback bundle is stopped while its traffic
 * thread is posting. Stopping must give the client exactly one remove, in which every outstanding
 * work request completes exactly once (success or WR_FLUSH_ERR), and must leave no device and no
 * engine thread; starting the bundle again must bring lo0 back, with one add.
 * <p>The loopback devices are factory configurations of {@value #PID} that this test makes and
 * deletes through ConfigurationAdmin (the framework runs with {@code jrdma.loopback.default=false},
 * so other tests see no loopback device). lo0 gets a fixed node GUID, so its engine thread has the
 * same name after every restart and the thread census of test c compares names. hw-loopback runs
 * an idle QP's work on the posting thread; each traffic session starts with an RNR retry, which
 * runs on the engine thread, so that thread is there to be stopped.
 * <p>Configuration changes reach the driver asynchronously (ConfigAdmin's event thread), bundle
 * stop/start synchronously; the test waits for both with bounded polling.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class LoopbackHotUnplugTest {
    static final String PID = "org.jrdma.hw.loopback";
    static final String LOOPBACK_BSN = "hw-loopback";
    static final String LO0 = "lo0";
    static final String LO1 = "lo1";
    static final String LO0_GUID = "6a72646d0000f000";
    static final String ENGINE_THREAD = "loopback-engine";
    static final String LO0_ENGINE = ENGINE_THREAD + "-" + LO0_GUID;
    /** Successful completions before the first unplug. */
    static final long WARMUP = 5000;
    /** Successful completions before the other unplugs and after a restart. */
    static final long BRIEFLY = 1000;
    static final int CYCLES = 5;

    @InjectBundleContext
    BundleContext context;

    @InjectService(cardinality = 0)
    ServiceAware<IbCore> ibCore;

    @InjectService(cardinality = 0)
    ServiceAware<ConfigurationAdmin> configAdmin;

    Bundle loopbackBundle;
    final List<Configuration> configs = new ArrayList<>();
    final List<TrafficClient> clients = new ArrayList<>();

    @BeforeEach
    void lo0() throws Exception {
        loopbackBundle = Frameworks.bundle(context, LOOPBACK_BSN);
        if (loopbackBundle.getState() != Bundle.ACTIVE) {
            loopbackBundle.start();
        }
        assertEquals(List.of(), loNames(), "loopback devices before the test (jrdma.loopback.default=false)");
        newDevice("unplug", 2, LO0_GUID);
        await("device " + LO0 + " from the factory configuration", () -> lo(LO0) != null);
        IbDevice lo0 = lo(LO0);
        assertEquals("loopback", lo0.driverName());
        assertEquals(2, lo0.physPortCnt());
        assertEquals(Long.parseUnsignedLong(LO0_GUID, 16), lo0.nodeGuid());
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (TrafficClient c : clients) {
                try {
                    core().unregisterClient(c);
                } catch (VerbsException e) {
                    // unregistered by the test
                }
                assertEquals(List.of(), c.violations(), "client contract violations");
            }
        } finally {
            if (loopbackBundle.getState() != Bundle.ACTIVE) {
                loopbackBundle.start();
            }
            for (Configuration c : configs) {
                try {
                    c.delete();
                } catch (IllegalStateException e) {
                    // deleted by the test
                }
            }
            await(() -> "no loopback device left; now " + loNames(), () -> loNames().isEmpty());
            await(() -> "no engine thread left; now " + engineThreads(), () -> engineThreads() == 0);
        }
    }

    /**
     * a. A second factory configuration is a second device (the next free name); deleting it
     * removes it, and lo0's traffic goes on undisturbed.
     */
    @Test
    void configurationAdminAddsAndDeletesADeviceWhileLo0CarriesTraffic() throws Exception {
        TrafficClient client = register(new TrafficClient(LO0, false, false));
        TrafficSession s = awaitSession(client, 1);
        awaitSuccesses(s, BRIEFLY);
        int lo0Index = lo(LO0).index();

        Configuration extra = newDevice("extra", 1, "");
        await(() -> "device " + LO1 + "; now " + loNames(), () -> lo(LO1) != null);
        IbDevice lo1 = lo(LO1);
        assertEquals("loopback", lo1.driverName());
        assertEquals(1, lo1.physPortCnt());
        assertTrue(lo1.index() > lo0Index, "index of lo1 " + lo1.index() + " after lo0's " + lo0Index);
        assertEquals(List.of(LO0, LO1), loNames());
        assertEvents(client, List.of("add lo0", "add lo1"));

        long before = s.successes();
        extra.delete();
        await(() -> LO1 + " gone; now " + loNames(), () -> lo(LO1) == null);
        assertEvents(client, List.of("add lo0", "add lo1", "remove lo1"));
        assertFalse(lo1.isRegistered());
        assertEquals(List.of(LO0), loNames());
        assertEquals(lo0Index, lo(LO0).index(), "lo0 is the same registration");
        assertOnlyLo0Engine();

        // lo0 did not notice
        awaitSuccesses(s, before + BRIEFLY);
        assertTrue(s.allThreadsAlive(), "lo0's traffic threads: " + s);
        assertEquals(0, s.flushed(), "flushes on lo0: " + s);
        TrafficChecks.assertNoErrors(s);
        assertEquals(List.of(), client.violations());
    }

    /**
     * b. The driver stops while the traffic thread posts: one remove, every WR completes once;
     * a start brings lo0 back; then the client leaves while lo0 stays.
     */
    @Test
    void stoppingTheDriverUnderTrafficFlushesEverythingAndAStartBringsLo0Back() throws Exception {
        TrafficClient client = register(new TrafficClient(LO0, false, false));
        TrafficSession s1 = awaitSession(client, 1);
        awaitSuccesses(s1, WARMUP);
        awaitPosting(s1);
        long opsBefore = s1.successes();

        loopbackBundle.stop();
        assertEquals(Bundle.RESOLVED, loopbackBundle.getState());
        assertEvents(client, List.of("add lo0", "remove lo0"));
        assertDrainedExactly(s1, false, "unplug: ");
        assertDriverGone();
        System.out.printf("LoopbackHotUnplugTest: unplug under traffic: %d successful completions before the stop,"
                + " %d posted in all, %d when remove came (%d outstanding); %d completed OK, %d flushed (%d sends,"
                + " %d receives); drain took %d ms; the traffic threads ended: %s%n", opsBefore, s1.posted(),
                s1.postedAtClose, s1.outstandingAtClose, s1.successes(), s1.flushed(), s1.flushedSends(),
                s1.flushedRecvs(), s1.drainMillis, s1.endReasons());

        loopbackBundle.start();
        await("lo0 back", () -> lo(LO0) != null);
        TrafficSession s2 = awaitSession(client, 2);
        assertTrue(s2.device != s1.device, "a new registration");
        assertEvents(client, List.of("add lo0", "remove lo0", "add lo0"));
        assertOnlyLo0Engine();
        awaitSuccesses(s2, BRIEFLY);
        TrafficChecks.assertNoErrors(s2);
        assertEquals(0, s2.flushed(), "flushes before anything was removed: " + s2);

        // the client leaves while the device stays
        awaitPosting(s2);
        core().unregisterClient(client);
        assertEquals(List.of("add lo0", "remove lo0", "add lo0", "remove lo0"), client.events("lo"));
        assertDrainedExactly(s2, true, "unregisterClient: ");
        assertNotNull(lo(LO0), "lo0 stays when the client leaves");
        assertEquals(List.of(), lo(LO0).resources().stream().filter(r -> TrafficClient.NAME.equals(r.owner())).toList(),
                "resources the traffic client left on lo0");
        assertOnlyLo0Engine();
        assertEquals(List.of(), client.violations());
    }

    /** c. Five unplugs under traffic: exact accounting every time, and no thread or service left over. */
    @Test
    void fiveUnplugCyclesUnderTrafficLeakNeitherThreadsNorServices() throws Exception {
        TrafficClient client = register(new TrafficClient(LO0, false, false));
        awaitSuccesses(awaitSession(client, 1), BRIEFLY);
        Map<String, Integer> threadsBefore = threadNames();
        int servicesBefore = Frameworks.serviceCount(context);
        assertEquals(1, threadsBefore.getOrDefault("traffic-" + LO0 + "-1to2", 0), "lane thread in " + threadsBefore);
        assertEquals(1, threadsBefore.getOrDefault(LO0_ENGINE, 0), "lo0's engine thread in " + threadsBefore);
        long posted = 0;
        long flushed = 0;
        for (int i = 1; i <= CYCLES; i++) {
            String cycle = "cycle " + i + ": ";
            TrafficSession s = client.current();
            awaitSuccesses(s, BRIEFLY);
            awaitPosting(s);
            loopbackBundle.stop();
            assertEquals(i, client.count("remove lo0"), cycle + "removes of lo0");
            assertDrainedExactly(s, false, cycle);
            assertDriverGone();
            posted += s.posted();
            flushed += s.flushed();

            loopbackBundle.start();
            await(cycle + "lo0 back", () -> lo(LO0) != null);
            awaitSession(client, i + 1);
            assertEquals(i + 1, client.count("add lo0"), cycle + "adds of lo0");
        }
        TrafficSession last = client.current();
        awaitSuccesses(last, BRIEFLY);
        TrafficChecks.assertNoErrors(last);
        assertEquals(CYCLES + 1, client.sessions().size());
        assertEquals(servicesBefore, Frameworks.serviceCount(context), "service registrations before and after");
        awaitValue("the same live threads as before the cycles", () -> threadsBefore, this::threadNames);
        assertEquals(List.of(), client.violations());
        System.out.printf("LoopbackHotUnplugTest: %d unplugs under traffic: %d work requests posted, %d flushed%n",
                CYCLES, posted, flushed);
    }

    /**
     * d. A ULP whose remove leaves its traffic running: ib-core destroys what it left, and the
     * traffic thread ends on its own when its verbs fail (or it sees its QP flushed).
     */
    @Test
    void aUlpThatIgnoresRemoveIsCleanedUpAndItsThreadEndsOnItsOwn() throws Exception {
        TrafficClient client = register(new TrafficClient(LO0, true, false));
        TrafficSession s = awaitSession(client, 1);
        awaitSuccesses(s, BRIEFLY);
        awaitPosting(s);

        loopbackBundle.stop();
        assertEvents(client, List.of("add lo0", "remove lo0"));
        assertTrue(s.threadsAliveAtClose, "the traffic threads ran when remove came");
        await(() -> "the traffic threads end on their own; " + s, () -> !s.anyThreadAlive());
        for (String why : s.endReasons()) {
            assertTrue(why.startsWith("verb failed") || why.startsWith("QP in ERR"), "why a thread ended: " + s);
        }
        assertEquals(List.of(), s.device.resources(), "ib-core destroyed what the client left");
        assertEquals(0, s.mismatches(), "data mismatches: " + s);
        assertEquals(0, s.unknown(), "unknown completions: " + s);
        assertEquals(0, s.otherErrors(), "error completions other than flushes: " + s);
        assertDriverGone();
        System.out.println("LoopbackHotUnplugTest: a ULP that ignored remove: " + s);
    }

    /**
     * e. Traffic both ways, so two threads post to (and hw-loopback runs) the two QPs of lo0 at once,
     * then the unplug and a restart.
     */
    @Test
    void bothWaysOnTwoThreadsThenUnplugAndRestart() throws Exception {
        TrafficClient client = register(new TrafficClient(LO0, false, true));
        TrafficSession s1 = awaitSession(client, 1);
        assertEquals(2, s1.lanes.size());
        awaitSuccesses(s1, WARMUP);
        TrafficChecks.assertNoErrors(s1);
        awaitPosting(s1);

        loopbackBundle.stop();
        assertEvents(client, List.of("add lo0", "remove lo0"));
        assertDrainedExactly(s1, false, "unplug both ways: ");
        assertDriverGone();
        System.out.println("LoopbackHotUnplugTest: unplug under traffic both ways: " + s1);

        loopbackBundle.start();
        TrafficSession s2 = awaitSession(client, 2);
        assertEvents(client, List.of("add lo0", "remove lo0", "add lo0"));
        awaitSuccesses(s2, BRIEFLY);
        TrafficChecks.assertNoErrors(s2);
    }

    // ---- assertions

    /** The session's remove ran once, stopped the thread, and every posted WR completed exactly once. */
    private void assertDrainedExactly(TrafficSession s, boolean deviceStays, String what) {
        assertTrue(s.closeRan, what + "remove ran");
        assertEquals(LO0, s.deviceName, what + "remove for");
        assertEquals(deviceStays, s.registeredAtClose, what + "device registered during remove");
        TrafficChecks.assertDrained(s, what);
    }

    private void assertDriverGone() {
        assertEquals(List.of(), loNames(), "loopback devices in IbCore.devices()");
        assertNull(loopbackBundle.getRegisteredServices(), "services of the stopped hw-loopback bundle");
        await(() -> "no engine thread alive; now " + engineThreads(), () -> engineThreads() == 0);
    }

    /** Waits for the expected loopback callbacks, then checks that nothing else came. */
    private static void assertEvents(TrafficClient client, List<String> expected) {
        await(() -> "callbacks " + expected + "; got " + client.events("lo"),
                () -> client.events("lo").size() >= expected.size());
        settle();
        assertEquals(expected, client.events("lo"), "callbacks for loopback devices");
    }

    // ---- helpers

    private TrafficClient register(TrafficClient c) {
        clients.add(c);
        core().registerClient(c);
        return c;
    }

    private static TrafficSession awaitSession(TrafficClient client, int n) {
        await(() -> "traffic session " + n + "; sessions " + client.sessions().size(),
                () -> client.sessions().size() >= n);
        TrafficSession s = client.sessions().get(n - 1);
        assertTrue(s.allThreadsAlive(), "traffic threads of session " + n + ": " + s);
        return s;
    }

    /** Also checks that lo0's engine thread runs (each session starts with an RNR retry, which runs there). */
    private static void awaitSuccesses(TrafficSession s, long n) {
        await(() -> n + " successful completions; " + s, () -> s.successes() >= n || !s.allThreadsAlive());
        assertTrue(s.allThreadsAlive(), "a traffic thread ended early: " + s);
        assertTrue(engineThreadNames().contains(LO0_ENGINE), "lo0's engine thread in " + engineThreadNames());
    }

    /** Until every lane thread has posted again: they are posting right now. */
    private static void awaitPosting(TrafficSession s) {
        for (TrafficSession.Lane l : s.lanes) {
            long p = l.posted.get();
            await(() -> "lane " + l.name + " posting; " + s, () -> l.posted.get() > p);
        }
    }

    private Configuration newDevice(String name, int ports, String guid) throws Exception {
        Configuration c = waitFor(configAdmin, "ConfigurationAdmin").getFactoryConfiguration(PID, name, "?");
        configs.add(c);
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("name", "lo%d");
        p.put("ports", ports);
        p.put("nodeGuid", guid);
        c.update(p);
        return c;
    }

    private IbCore core() {
        return waitFor(ibCore, "IbCore");
    }

    private IbDevice lo(String name) {
        return core().device(name).orElse(null);
    }

    private List<String> loNames() {
        return core().devices().stream().filter(d -> "loopback".equals(d.driverName())).map(IbDevice::name).toList();
    }

    /** No engine thread but lo0's (a device's engine thread starts when work is first handed to it). */
    private static void assertOnlyLo0Engine() {
        await(() -> "no engine thread but lo0's; now " + engineThreadNames(),
                () -> engineThreadNames().stream().allMatch(LO0_ENGINE::equals));
    }

    private static List<String> engineThreadNames() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(ENGINE_THREAD)) {
                names.add(t.getName());
            }
        }
        return names;
    }

    private static int engineThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(ENGINE_THREAD)) {
                n++;
            }
        }
        return n;
    }

    private Map<String, Integer> threadNames() {
        Map<String, Integer> names = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive()) {
                names.merge(t.getName(), 1, Integer::sum);
            }
        }
        return names;
    }

}
