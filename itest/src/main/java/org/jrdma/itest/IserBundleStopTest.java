package org.jrdma.itest;

import static org.jrdma.itest.Waits.await;
import static org.jrdma.itest.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
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
 * Issue 14, faults: the ulp-iser bundle or the hw-rxe driver bundle stopped under iSER I/O, inside Felix. One rxe
 * device ({@value #DEV}, 127.X.Y.1 on lo, a factory configuration of hw-rxe), a target made through
 * ConfigAdmin (factory PID {@value #TARGET_PID}: a 64 MiB ramdisk LUN, demo mode, portal 127.X.Y.1:3260) and a
 * session of the {@link IserInitiator} service to it on the same device, as the container's one-line demo does.
 * Stopping must end the sessions with every I/O future completed (done or an {@link IserIoException}), and leave
 * no iSER thread, QP, MR, PD, CQ or RDMA CM id; starting again must serve a new login byte-exact.
 */
@ExtendWith({BundleContextExtension.class, ServiceExtension.class})
class IserBundleStopTest {
    static final String RXE_PID = "org.jrdma.hw.rxe";
    static final String TARGET_PID = "org.jrdma.ulp.iser.target";
    static final String DEV = "rxe_is0";
    /** The restrack owner of ulp-iser's verbs objects, as Linux's {@code rdma resource} shows them. */
    static final String OWNER = "ib_iser";
    static final String IQN = "iqn.2026-12.org.jrdma:stop";
    static final int MIB = 1 << 20;
    /** 1 MiB writes queued at once: cmds_max (128) on the wire, the rest waiting in the session. */
    static final int IOS = 512;
    static final Duration REPLACEMENT = Duration.ofSeconds(3);
    /** Waits that cover logins, NOP timeouts and the replacement timeout on a loaded 2-core machine. */
    static final long LONG_MS = 30_000;

    @InjectBundleContext
    BundleContext context;

    @InjectService(cardinality = 0)
    ServiceAware<IbCore> ibCore;

    @InjectService(cardinality = 0)
    ServiceAware<ConfigurationAdmin> configAdmin;

    @InjectService(cardinality = 0)
    ServiceAware<IserInitiator> initiators;

    @InjectService(cardinality = 0)
    ServiceAware<RdmaCm> rdmaCm;

    Bundle iser;
    Bundle rxe;
    InetSocketAddress portal;
    final List<Configuration> configs = new ArrayList<>();
    final byte[] data = new byte[MIB];
    @BeforeEach
    void deviceAndTarget() throws Exception {
        iser = Frameworks.bundle(context, "ulp-iser");
        rxe = Frameworks.bundle(context, "hw-rxe");
        for (Bundle b : List.of(rxe, iser)) {
            if (b.getState() != Bundle.ACTIVE) {
                b.start();
            }
        }
        new Random(14).nextBytes(data);
        InetAddress addr = RxeAddresses.pickFreePair()[0];
        portal = new InetSocketAddress(addr, 3260);
        configure(RXE_PID, DEV, Map.of("name", DEV, "netdev", "lo", "addr", addr.getHostAddress()));
        await("rxe device " + DEV, () -> device() != null);
        configure(TARGET_PID, "stop", Map.of("iqn", IQN, "portals", new String[] {addr.getHostAddress() + ":3260"},
                "luns", new String[] {"ramdisk:rd_stop:64M"}));
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Bundle b : List.of(rxe, iser)) {
            if (b.getState() != Bundle.ACTIVE) {
                b.start();
            }
        }
        for (Configuration c : configs) {
            c.delete();
        }
        await("no rxe device left", () -> device() == null);
    }

    /** (a) ulp-iser stopped under I/O, then started: the target serves again from its configuration. */
    @Test
    void stoppingUlpIserUnderIoClosesSessionsFreesEverythingAndAStartServesAgain() throws Exception {
        int idsBefore = cmIds();
        IserSession s = loginAndCheck();
        Map<ResourceType, Long> inUse = iserResources();
        assertTrue(inUse.get(ResourceType.QP) >= 2 && inUse.get(ResourceType.MR) > 0,
                "ulp-iser's QPs (initiator and target side) and MRs while logged in: " + inUse);
        assertEquals(1, targetSessions());
        List<CompletableFuture<Void>> io = writesInFlight(s);

        iser.stop();
        int failed = assertAllEnded(io, "session ");
        assertTrue(failed > 0, "every write was done before the stop: not under I/O");
        assertEquals(IserSession.State.FREE, s.state());
        assertNoIserThread();
        longAwait("no QP, MR, PD or CQ of ulp-iser left: " + device().resources(),
                () -> iserResources().values().stream().allMatch(n -> n == 0));
        assertEquals(idsBefore, cmIds(), "RDMA CM ids");
        System.out.printf("IserBundleStopTest: ulp-iser stopped under I/O, %d of %d writes failed%n", failed, IOS);

        iser.start();
        IserSession again = loginAndCheck();
        assertEquals(1, targetSessions());
        again.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
        longAwait("no QP, MR, PD or CQ of ulp-iser left after the logout", () -> iserResources().values().stream()
                .allMatch(n -> n == 0));
    }

    /**
     * (b) hw-rxe stopped under I/O: the device goes, the target drops the session, the initiator's I/O fails after
     * the replacement timeout, no completion thread is left; started again, the session is reinstated (the target
     * listens again) and a new login serves too. That nothing of ulp-iser is left for ib-core to reap when the
     * device goes is checked where the report is at hand: RdmaIserTransportRxeTest and ConnectionLossOverRxeTest
     * (ib-core reaps objects of no registered client silently, so nothing in Felix shows it).
     */
    @Test
    void stoppingTheDriverUnderIoFailsIoCleanlyAndTheSessionComesBackWithTheDevice() throws Exception {
        IserSession s = loginAndCheck();
        List<CompletableFuture<Void>> io = writesInFlight(s);

        assertEquals(1, targetSessions());
        rxe.stop();
        await("rxe device gone", () -> device() == null);
        longAwait("the target dropped the session", () -> targetSessions() == 0);
        int failed = assertAllEnded(io, "replacement timeout");
        assertTrue(failed > 0, "every write was done before the stop: not under I/O");
        assertEquals(IserSession.State.FAILED, s.state());
        longAwait("no iser completion thread", () -> threads("iser-cq-").isEmpty());

        rxe.start();
        await("rxe device back", () -> device() != null);
        longAwait("session reinstated", () -> s.state() == IserSession.State.LOGGED_IN);
        writeReadBack(s, 0);
        assertEquals(1, targetSessions());
        s.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
        longAwait("no target session after the logout", () -> targetSessions() == 0);
        IserSession other = loginAndCheck();
        other.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
        longAwait("no QP, MR, PD or CQ of ulp-iser on the new device after the logouts",
                () -> iserResources().values().stream().allMatch(n -> n == 0));
        System.out.printf("IserBundleStopTest: hw-rxe stopped under I/O, %d of %d writes failed%n", failed, IOS);
    }

    // ---- steps

    /** A login (retried while the target's listener is not up yet) and one byte-exact 1 MiB write and read. */
    private IserSession loginAndCheck() throws Exception {
        IserInitiator ini = waitFor(initiators, "IserInitiator");
        IserSessionOptions opts = IserSessionOptions.defaults().withTimeouts(REPLACEMENT, Duration.ofSeconds(5),
                Duration.ofSeconds(5), Duration.ofSeconds(5));
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LONG_MS);
        while (true) {
            try {
                IserSession s = ini.login(portal, IQN, opts).toCompletableFuture().get(20, TimeUnit.SECONDS);
                writeReadBack(s, 4096);
                return s;
            } catch (ExecutionException e) {
                if (System.nanoTime() - end > 0) {
                    throw e;
                }
                Thread.sleep(200); // the target's listener comes with its configuration, asynchronously
            }
        }
    }

    private void writeReadBack(IserSession s, long lba) throws Exception {
        s.write(0, lba, MIB / 512, ByteBuffer.wrap(data)).get(20, TimeUnit.SECONDS);
        ByteBuffer back = ByteBuffer.allocate(MIB);
        s.read(0, lba, MIB / 512, back).get(20, TimeUnit.SECONDS);
        assertArrayEquals(data, back.array(), "1 MiB at LBA " + lba);
    }

    /** {@value #IOS} writes of 1 MiB over the first 32 MiB; returns once the first few are done. */
    private List<CompletableFuture<Void>> writesInFlight(IserSession s) {
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < IOS; i++) {
            io.add(s.write(0, (i % 32) * (MIB / 512L), MIB / 512, ByteBuffer.wrap(data)));
        }
        await("4 writes done", () -> io.stream().filter(CompletableFuture::isDone).count() >= 4);
        return io;
    }

    /** Every future ends (none hangs): done, or an IserIoException whose message has {@code why}; the failures. */
    private static int assertAllEnded(List<CompletableFuture<Void>> io, String why) throws Exception {
        int failed = 0;
        for (CompletableFuture<Void> f : io) {
            try {
                f.get(LONG_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                IserIoException x = assertInstanceOf(IserIoException.class, e.getCause());
                assertTrue(x.getMessage().contains(why), x.getMessage());
                failed++;
            }
        }
        return failed;
    }

    private void assertNoIserThread() {
        longAwait("no iser thread", () -> threads("iser-").isEmpty());
    }

    // ---- lookups

    private void configure(String pid, String name, Map<String, Object> props) throws Exception {
        Configuration c = waitFor(configAdmin, "ConfigurationAdmin").getFactoryConfiguration(pid, name, "?");
        configs.add(c);
        c.update(new Hashtable<>(props));
    }

    private IbDevice device() {
        return waitFor(ibCore, "IbCore").device(DEV).orElse(null);
    }

    /**
     * {@code rdma resource}: ulp-iser's objects on the device by kind (owner {@value #OWNER}; the other owners, the
     * MAD layer and itest-client, come and go on their own).
     */
    private Map<ResourceType, Long> iserResources() {
        Map<ResourceType, Long> m = new EnumMap<>(ResourceType.class);
        for (ResourceType t : List.of(ResourceType.QP, ResourceType.MR, ResourceType.PD, ResourceType.CQ)) {
            m.put(t, device().resources().stream().filter(r -> r.type() == t && OWNER.equals(r.owner()))
                    .count());
        }
        return m;
    }

    /**
     * The RDMA CM's live ids. ib-cm keeps the count package-private in its impl ({@code RdmaCmService.idCount}, what
     * its own leak tests use) and restrack has no cm_id kind, so it is read by reflection from the service object.
     */
    private int cmIds() throws Exception {
        Object component = waitFor(rdmaCm, "RdmaCm");
        java.lang.reflect.Field f = component.getClass().getDeclaredField("cm");
        f.setAccessible(true);
        Object service = f.get(component);
        java.lang.reflect.Method m = service.getClass().getDeclaredMethod("idCount");
        m.setAccessible(true);
        return (Integer) m.invoke(service);
    }

    /** The target's live sessions ({@code targetcli sessions}): its service class is private to ulp-iser. */
    private int targetSessions() {
        try {
            org.osgi.framework.ServiceReference<?> ref = context.getServiceReference(
                    "org.jrdma.ulp.iser.target.IserTargetService");
            if (ref == null) {
                return 0;
            }
            Object target = context.getService(ref);
            try {
                return ((List<?>) target.getClass().getMethod("sessions").invoke(target)).size();
            } finally {
                context.ungetService(ref);
            }
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(prefix))
                .sorted().toList();
    }

    private static void longAwait(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LONG_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                fail("timed out after " + LONG_MS + " ms waiting for " + what + "; iser threads " + threads("iser-"));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
