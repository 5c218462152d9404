package org.jrdma.itest;

import static org.jrdma.itest.RxeAddresses.ROCE_PORT;
import static org.jrdma.itest.Waits.await;
import static org.jrdma.itest.Waits.awaitValue;
import static org.jrdma.itest.Waits.settle;
import static org.jrdma.itest.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.test.common.annotation.InjectBundleContext;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.common.service.ServiceAware;
import org.osgi.test.junit5.context.BundleContextExtension;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Hot-unplug of hw-rxe (Soft-RoCE over real UDP sockets) under traffic. Two rxe devices on the kernel
 * loopback, {@value #A} on 127.X.Y.1 and {@value #B} on 127.X.Y.2 (random X, Y: all of 127/8 is on
 * {@code lo}, so concurrent builds on one host do not collide on UDP 4791), are factory configurations
 * of {@value #PID} made through ConfigurationAdmin. A ULP ({@link TrafficClient} with a peer) runs RC
 * SENDs, RECVs and RDMA WRITEs from {@value #A} to {@value #B} over RoCEv2 (see {@link TrafficSession}),
 * and the hw-rxe bundle is stopped while its traffic thread is posting.
 * <p>Stopping must give the client one remove per device, the first of which closes the session:
 * every outstanding work request completes exactly once (success or WR_FLUSH_ERR) while the devices
 * still work. Afterwards no rxe device, service or thread ({@code rxe-engine-*}, {@code rxe-net*},
 * {@code rxe-link-*}) is left, UDP 4791 on both addresses can be bound again (the channels are
 * closed), and nothing was thrown or logged with an exception. Starting the bundle again brings both
 * devices back from their configurations, and the traffic runs byte-exact again.
 * <p>Linux does the same on {@code rmmod rdma_rxe}: {@code rxe_module_exit} unregisters every device
 * (clients' remove, QPs flushed) and closes the tunnel sockets on 4791.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class RxeHotUnplugTest {
    static final String PID = "org.jrdma.hw.rxe";
    static final String RXE_BSN = "hw-rxe";
    static final String A = "rxe_hu_a";
    static final String B = "rxe_hu_b";
    /** Every thread of hw-rxe: engines ({@code rxe-engine-GUID}), event loops ({@code rxe-net-NAME-..}), link monitors. */
    static final String RXE_THREADS = "rxe-";
    /** Successful completions before the first unplug. */
    static final long WARMUP = 2000;
    /** Successful completions before the other unplugs and after a restart. */
    static final long BRIEFLY = 500;
    static final int CYCLES = 3;

    @InjectBundleContext
    BundleContext context;

    @InjectService(cardinality = 0)
    ServiceAware<IbCore> ibCore;

    @InjectService(cardinality = 0)
    ServiceAware<ConfigurationAdmin> configAdmin;

    Bundle rxeBundle;
    InetAddress addrA;
    InetAddress addrB;
    final List<Configuration> configs = new ArrayList<>();
    final List<TrafficClient> clients = new ArrayList<>();
    /** Exceptions that escaped: logged with a Throwable or SEVERE, framework errors, uncaught in threads. */
    final List<String> escaped = Collections.synchronizedList(new ArrayList<>());
    private final Handler logWatch = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getThrown() != null || r.getLevel().intValue() >= Level.SEVERE.intValue()) {
                escaped.add("log " + r.getLoggerName() + " " + r.getLevel() + ": " + r.getMessage()
                        + (r.getThrown() == null ? "" : " " + r.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final FrameworkListener frameworkWatch = e -> {
        if (e.getType() == FrameworkEvent.ERROR || e.getType() == FrameworkEvent.WARNING) {
            escaped.add("framework event " + e.getType() + " from " + e.getBundle().getSymbolicName() + ": "
                    + e.getThrowable());
        }
    };
    private Thread.UncaughtExceptionHandler uncaughtBefore;

    @BeforeEach
    void twoRxeDevices() throws Exception {
        rxeBundle = Frameworks.bundle(context, RXE_BSN);
        if (rxeBundle.getState() != Bundle.ACTIVE) {
            rxeBundle.start();
        }
        assertEquals(List.of(), rxeNames(), "rxe devices before the test");
        InetAddress[] pair = RxeAddresses.pickFreePair();
        addrA = pair[0];
        addrB = pair[1];
        Logger.getLogger("").addHandler(logWatch);
        context.addFrameworkListener(frameworkWatch);
        uncaughtBefore = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> escaped.add("uncaught in " + t.getName() + ": " + e));

        newDevice(A, addrA);
        newDevice(B, addrB);
        await(() -> "devices " + A + " and " + B + " from the factory configurations; now " + rxeNames(),
                () -> rxe(A) != null && rxe(B) != null);
        assertDevice(A, addrA);
        assertDevice(B, addrB);
        assertPortTaken(addrA);
        assertPortTaken(addrB);
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
            if (rxeBundle.getState() != Bundle.ACTIVE) {
                rxeBundle.start();
            }
            for (Configuration c : configs) {
                try {
                    c.delete();
                } catch (IllegalStateException e) {
                    // deleted by the test
                }
            }
            try {
                await(() -> "no rxe device left; now " + rxeNames(), () -> rxeNames().isEmpty());
                await(() -> "no rxe thread left; now " + rxeThreads(), () -> rxeThreads().isEmpty());
            } finally {
                Logger.getLogger("").removeHandler(logWatch);
                context.removeFrameworkListener(frameworkWatch);
                Thread.setDefaultUncaughtExceptionHandler(uncaughtBefore);
            }
        }
    }

    /**
     * a. The driver stops while the traffic thread posts: a remove for each device, every WR completes
     * once, threads and sockets are gone; a start brings both devices back and the traffic with them.
     */
    @Test
    void stoppingTheDriverUnderTrafficFlushesEverythingClosesSocketsAndAStartBringsBothBack() throws Exception {
        TrafficClient client = register(new TrafficClient(A, B, false, false));
        TrafficSession s1 = awaitSession(client, 1);
        awaitSuccesses(s1, WARMUP);
        awaitPosting(s1);
        long opsBefore = s1.successes();

        String stderr = stopQuietly();
        assertEquals(Bundle.RESOLVED, rxeBundle.getState());
        assertRemoves(client, 1);
        assertDrainedExactly(s1, "unplug: ");
        assertDriverGone();
        assertNoOutput(stderr, "stop");
        System.out.printf("RxeHotUnplugTest: unplug under RoCE traffic (%s -> %s): %d successful completions before"
                + " the stop, %d posted in all, %d when remove of %s came (%d outstanding); %d completed OK, %d"
                + " flushed with WR_FLUSH_ERR (%d sends, %d receives); drain took %d ms%n", addrA.getHostAddress(),
                addrB.getHostAddress(), opsBefore, s1.posted(), s1.postedAtClose, s1.closedBy, s1.outstandingAtClose,
                s1.successes(), s1.flushed(), s1.flushedSends(), s1.flushedRecvs(), s1.drainMillis);

        stderr = startQuietly();
        await(() -> "both devices back; now " + rxeNames(), () -> rxe(A) != null && rxe(B) != null);
        assertNoOutput(stderr, "start");
        TrafficSession s2 = awaitSession(client, 2);
        assertTrue(s2.device != s1.device && s2.peerDevice != s1.peerDevice, "new registrations");
        assertEquals(2, client.count("add " + A));
        assertEquals(2, client.count("add " + B));
        assertDevice(A, addrA);
        assertDevice(B, addrB);
        assertPortTaken(addrA);
        assertPortTaken(addrB);
        awaitSuccesses(s2, BRIEFLY);
        TrafficChecks.assertNoErrors(s2);
        assertEquals(0, s2.flushed(), "flushes before anything was removed: " + s2);
        assertEquals(List.of(), escaped, "exceptions");
        assertEquals(List.of(), client.violations());
    }

    /**
     * b. Stop/start cycles under traffic both ways (two lane threads, both QPs send): exact accounting
     * each time, and the same threads (by kind), services and free sockets after every cycle.
     */
    @Test
    void stopStartCyclesUnderTrafficBothWaysLeakNeitherThreadsNorSocketsNorServices() throws Exception {
        TrafficClient client = register(new TrafficClient(A, B, false, true));
        TrafficSession first = awaitSession(client, 1);
        assertEquals(2, first.lanes.size());
        awaitSuccesses(first, BRIEFLY);
        Map<String, Integer> threadsBefore = threadKinds();
        int servicesBefore = Frameworks.serviceCount(context);
        assertTrue(threadsBefore.keySet().stream().anyMatch(n -> n.startsWith("rxe-engine-")),
                "rxe engine threads in " + threadsBefore);
        assertTrue(threadsBefore.keySet().stream().anyMatch(n -> n.startsWith("rxe-net-" + A)),
                "event loop of " + A + " in " + threadsBefore);
        long posted = 0;
        long flushed = 0;
        for (int i = 1; i <= CYCLES; i++) {
            String cycle = "cycle " + i + ": ";
            TrafficSession s = client.current();
            awaitSuccesses(s, BRIEFLY);
            awaitPosting(s);
            String stderr = stopQuietly();
            assertRemoves(client, i);
            assertDrainedExactly(s, cycle);
            assertDriverGone();
            assertNoOutput(stderr, cycle + "stop");
            posted += s.posted();
            flushed += s.flushed();

            stderr = startQuietly();
            await(cycle + "both back", () -> rxe(A) != null && rxe(B) != null);
            assertNoOutput(stderr, cycle + "start");
            awaitSession(client, i + 1);
        }
        TrafficSession last = client.current();
        awaitSuccesses(last, BRIEFLY);
        TrafficChecks.assertNoErrors(last);
        assertEquals(CYCLES + 1, client.sessions().size());
        assertEquals(servicesBefore, Frameworks.serviceCount(context), "service registrations before and after");
        awaitValue("the same kinds and numbers of live threads as before the cycles", () -> threadsBefore,
                this::threadKinds);
        assertEquals(List.of(), escaped, "exceptions");
        assertEquals(List.of(), client.violations());
        System.out.printf("RxeHotUnplugTest: %d stops under RoCE traffic both ways: %d work requests posted, %d"
                + " flushed with WR_FLUSH_ERR%n", CYCLES, posted, flushed);
    }

    // ---- assertions

    /** The session's remove ran once, stopped the threads, and every posted WR completed exactly once. */
    private void assertDrainedExactly(TrafficSession s, String what) {
        assertTrue(s.closeRan, what + "remove ran");
        assertTrue(A.equals(s.closedBy) || B.equals(s.closedBy), what + "remove of " + s.closedBy);
        assertFalse(s.registeredAtClose, what + "device registered during remove (unregistration had begun)");
        TrafficChecks.assertDrained(s, what);
    }

    /** After the n-th stop: n adds and n removes of each device, removes only after both adds. */
    private static void assertRemoves(TrafficClient client, int n) {
        await(() -> n + " removes of each device; got " + client.events("rxe_hu"),
                () -> client.count("remove " + A) >= n && client.count("remove " + B) >= n);
        settle();
        List<String> ev = client.events("rxe_hu");
        assertEquals(4 * n, ev.size(), "callbacks for the rxe devices: " + ev);
        for (int i = 0; i < n; i++) {
            List<String> cycle = ev.subList(4 * i, 4 * i + 4);
            List<String> sorted = new ArrayList<>(cycle.subList(0, 2));
            Collections.sort(sorted);
            assertEquals(List.of("add " + A, "add " + B), sorted, "adds first: " + ev);
            sorted = new ArrayList<>(cycle.subList(2, 4));
            Collections.sort(sorted);
            assertEquals(List.of("remove " + A, "remove " + B), sorted, "then removes: " + ev);
        }
    }

    /** No device, service, thread or bound socket of hw-rxe; nothing thrown. */
    private void assertDriverGone() {
        assertEquals(List.of(), rxeNames(), "rxe devices in IbCore.devices()");
        assertNull(rxeBundle.getRegisteredServices(), "services of the stopped hw-rxe bundle");
        await(() -> "no rxe thread alive; now " + rxeThreads(), () -> rxeThreads().isEmpty());
        assertPortFree(addrA);
        assertPortFree(addrB);
        assertEquals(List.of(), escaped, "exceptions while stopping");
    }

    private void assertDevice(String name, InetAddress addr) {
        IbDevice d = rxe(name);
        assertEquals("rxe", d.driverName());
        assertEquals(1, d.physPortCnt());
        assertEquals(LinkLayer.ETHERNET, d.linkLayer(1));
        assertEquals(PortState.ACTIVE, d.queryPort(1).state());
        assertEquals(Gid.of(addr), d.queryGid(1, 0), name + " GID 0 is its address, IPv4-mapped");
        assertEquals("lo", d.getNetdev(1), name + " runs on netdev lo (rdma link shows it)");
    }

    /** The device's channel holds UDP 4791 on the address: a second bind fails (what makes the free check mean something). */
    private static void assertPortTaken(InetAddress addr) {
        try (DatagramSocket s = new DatagramSocket(null)) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(addr, ROCE_PORT));
            fail("UDP " + addr.getHostAddress() + ":" + ROCE_PORT + " could be bound while the rxe device is up");
        } catch (BindException expected) {
            // taken by the device
        } catch (SocketException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertPortFree(InetAddress addr) {
        try (DatagramSocket s = new DatagramSocket(null)) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(addr, ROCE_PORT));
        } catch (SocketException e) {
            fail("UDP " + addr.getHostAddress() + ":" + ROCE_PORT + " is still bound after the stop: " + e);
        }
    }

    private static void assertNoOutput(String stderr, String what) {
        assertFalse(stderr.contains("Exception") || stderr.contains("ERROR"), what + ": stderr " + stderr);
    }

    // ---- bundle stop/start with stderr watched (SCR reports failed activations and deactivations there)

    private String stopQuietly() throws Exception {
        return withStderr(() -> rxeBundle.stop());
    }

    private String startQuietly() throws Exception {
        return withStderr(() -> rxeBundle.start());
    }

    interface BundleOp {
        void run() throws Exception;
    }

    private static String withStderr(BundleOp op) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                err.write(b);
                synchronized (copy) {
                    copy.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                err.write(b, off, len);
                synchronized (copy) {
                    copy.write(b, off, len);
                }
            }
        }, true, StandardCharsets.UTF_8));
        try {
            op.run();
            settle();
        } finally {
            System.setErr(err);
        }
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
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

    /** RoCE over the kernel loopback is slower than hw-loopback: a longer bound than Waits'. */
    private static void awaitSuccesses(TrafficSession s, long n) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (s.successes() < n && s.allThreadsAlive() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        assertTrue(s.allThreadsAlive(), () -> "a traffic thread ended early: " + s + "; " + counters(s));
        assertTrue(s.successes() >= n, () -> n + " successful completions within 60 s; " + s + "; " + counters(s));
    }

    /** rxe's port counters of both ends (rdma statistic), for a failure message. */
    private static String counters(TrafficSession s) {
        StringBuilder sb = new StringBuilder();
        for (IbDevice d : List.of(s.device, s.peerDevice)) {
            try {
                sb.append(d.name()).append(' ').append(d.queryHwStats(1)).append(' ');
            } catch (RuntimeException e) {
                sb.append(d.name()).append(' ').append(e).append(' ');
            }
        }
        return sb.toString();
    }

    /** Until every lane thread has posted again: they are posting right now. */
    private static void awaitPosting(TrafficSession s) {
        for (TrafficSession.Lane l : s.lanes) {
            long p = l.posted.get();
            await(() -> "lane " + l.name + " posting; " + s, () -> l.posted.get() > p);
        }
    }

    private void newDevice(String name, InetAddress addr) throws Exception {
        Configuration c = waitFor(configAdmin, "ConfigurationAdmin").getFactoryConfiguration(PID, name, "?");
        configs.add(c);
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("name", name);
        p.put("netdev", "lo");
        p.put("addr", addr.getHostAddress());
        c.update(p);
    }

    private IbCore core() {
        return waitFor(ibCore, "IbCore");
    }

    private IbDevice rxe(String name) {
        return core().device(name).orElse(null);
    }

    private List<String> rxeNames() {
        return core().devices().stream().filter(d -> "rxe".equals(d.driverName())).map(IbDevice::name).toList();
    }

    private static List<String> rxeThreads() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(RXE_THREADS)) {
                names.add(t.getName());
            }
        }
        Collections.sort(names);
        return names;
    }

    /**
     * Threads that come and go on their own: Netty's GlobalEventExecutor thread ends after a second
     * without tasks, SCR's registry timer runs only while a component waits for its delayed deactivation.
     */
    static final List<String> TRANSIENT_THREADS = List.of("globalEventExecutor-", "SCR Component Registry");

    /**
     * Live threads by kind: the name with its numbers blanked (Netty numbers its pools and threads
     * globally, so an event loop of the same device has a new name after each restart); without
     * {@link #TRANSIENT_THREADS}.
     */
    private Map<String, Integer> threadKinds() {
        Map<String, Integer> kinds = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && TRANSIENT_THREADS.stream().noneMatch(t.getName()::startsWith)) {
                String n = t.getName();
                String kind = n.startsWith("rxe-engine-") ? n : n.replaceAll("[0-9]+", "#");
                kinds.merge(kind, 1, Integer::sum);
            }
        }
        return kinds;
    }
}
