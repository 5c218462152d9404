package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.PortalGroup;
import org.jrdma.ulp.iser.target.TargetCounter;
import org.jrdma.ulp.iser.target.TargetDirectory;
import org.jrdma.ulp.iser.target.WindowedRuntimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The initiator against the real target runtime (login, SCSI core, ramdisk) over the in-memory transport. */
class InitiatorTargetEndToEndTest {
    static final InetSocketAddress PORTAL = new InetSocketAddress("192.0.2.1", 3260);
    static final String IQN = "iqn.2003-01.org.linux-iscsi.t1.x8664:sn.0123456789ab";
    static final long SIZE = 64L << 20;
    final MemoryTransport fabric = new MemoryTransport();
    final Directory directory = new Directory(new LunTable(new TreeMap<>(java.util.Map.of(0,
            new ScsiLun(new RamdiskBackstore("rd0", SIZE), false)))));
    final IserInitiatorService initiator = new IserInitiatorService(fabric, "iqn.2026-12.org.jrdma:01:e2e");
    IserTargetRuntime target = runtime(128);

    /** One TPG (tag 1) of one target, demo mode, no CHAP. */
    record Directory(ScsiExecutor luns, java.util.concurrent.atomic.AtomicReference<ChapCredentials> chapRef)
            implements TargetDirectory, PortalGroup {
        Directory(ScsiExecutor luns) {
            this(luns, new java.util.concurrent.atomic.AtomicReference<>());
        }

        @Override public Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal) {
            return targetName.equals(IQN) ? Optional.of(this) : Optional.empty();
        }
        @Override public List<SendTarget> sendTargets(String initiatorName, InetSocketAddress portal) {
            return List.of(new SendTarget(IQN, List.of("192.0.2.1:3260,1")));
        }
        @Override public String targetName() { return IQN; }
        @Override public int tag() { return 1; }
        @Override public boolean allows(String initiatorName) { return true; }
        @Override public Optional<ChapCredentials> chap(String initiatorName) {
            return Optional.ofNullable(chapRef.get());
        }
        @Override public ScsiExecutor luns(String initiatorName) { return luns; }
        @Override public boolean writeProtected(String initiatorName) { return false; }
    }

    IserTargetRuntime runtime(int window) {
        return enabledRuntime(fabric, directory, window);
    }

    /** The target runtime on {@code fabric} with a command window of {@code window}, listening on {@link #PORTAL}. */
    static IserTargetRuntime enabledRuntime(MemoryTransport fabric, Directory directory, int window) {
        IserTargetRuntime r = WindowedRuntimes.create(fabric, directory, window);
        r.enable(PORTAL);
        return r;
    }

    @AfterEach
    void tearDown() {
        initiator.close();
        target.close();
        fabric.close();
    }

    IserSession login(IserSessionOptions o) throws Exception {
        return initiator.login(PORTAL, IQN, o).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void loginScanFindsTheRamdisk() throws Exception {
        IserSession s = login(IserSessionOptions.defaults());
        assertEquals(List.of(0), s.luns());
        assertEquals(SIZE / 512, s.capacity(0));
        assertEquals(512, s.blockSize(0));
        assertEquals(1, s.portalGroupTag());
        assertEquals(1, target.sessions().size());
        assertEquals(IserInitiatorService.ISID_BASE + 1, target.sessions().get(0).isid());
    }

    @Test
    void byteExactAt4k64k1mAndThirtyTwoInFlight() throws Exception {
        IserSession s = login(IserSessionOptions.defaults());
        TestIo.writeReadBack(s, 0, 4096, 65536, 1 << 20);
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            io.add(s.write(0, 4096 + i * 2048L, 2048, ByteBuffer.wrap(pattern(1 << 20, i))));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        List<ByteBuffer> backs = new ArrayList<>();
        io.clear();
        for (int i = 0; i < 32; i++) {
            ByteBuffer b = ByteBuffer.allocate(1 << 20);
            backs.add(b);
            io.add(s.read(0, 4096 + i * 2048L, 2048, b));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        for (int i = 0; i < 32; i++) {
            assertArrayEquals(pattern(1 << 20, i), backs.get(i).array(), "1 MiB I/O " + i);
        }
        assertEquals((4096 + 65536 + (1 << 20)) + 32L * (1 << 20), target.counters().get(TargetCounter.WRITE_BYTES));
        assertEquals(0, fabric.buffersInUse());
    }

    @Test
    void outOfRangeReadIsIllegalRequest() throws Exception {
        IserSession s = login(IserSessionOptions.defaults());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, s.capacity(0), 1, ByteBuffer.allocate(512))));
        IserIoException x = assertInstanceOf(IserIoException.class, e.getCause());
        assertEquals("READ(16) LUN 0: CHECK CONDITION, ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE",
                x.getMessage());
        assertEquals(5, x.senseKey());
        assertEquals(0x21, x.asc());
    }

    @Test
    void aSmallWindowIsNeverOverrun() throws Exception {
        target.close();
        target = runtime(4);
        IserSession s = login(IserSessionOptions.defaults());
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            io.add(s.write(0, i * 8L, 8, ByteBuffer.wrap(pattern(4096, i))));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        assertEquals(0, target.counters().get(TargetCounter.OUT_OF_WINDOW));
        ByteBuffer back = ByteBuffer.allocate(4096);
        await(s.read(0, 31 * 8L, 8, back));
        assertArrayEquals(pattern(4096, 31), back.array());
    }

    @Test
    void pingsAreAnsweredAndLogoutEndsBothSides() throws Exception {
        InitiatorSession s = (InitiatorSession) login(IserSessionOptions.defaults().withTimeouts(
                Duration.ofSeconds(120), Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(2)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.pingsAnswered() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(s.pingsAnswered() >= 2);
        s.logout().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(IserSession.State.FREE, s.state());
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!target.sessions().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of(), target.sessions());
    }

    @Test
    void aFirstLoginRefusedByTheTransportIsTriedAgainAsOpenIscsiDoes() throws Exception {
        target.close(); // nobody listens: the first connect fails at once
        long t0 = System.nanoTime();
        CompletableFuture<IserSession> pending = initiator.login(PORTAL, IQN, IserSessionOptions.defaults())
                .toCompletableFuture();
        Thread.sleep(ConnectionLogin.LOGIN_RETRY_DELAY_MS / 2);
        target = runtime(128); // listening before the second attempt
        IserSession s = pending.get(10, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - t0 >= ConnectionLogin.LOGIN_RETRY_DELAY_MS * 1_000_000, "a second attempt");
        assertEquals(List.of(0), s.luns());
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 7))));
        ByteBuffer back = ByteBuffer.allocate(4096);
        await(s.read(0, 0, 8, back));
        assertArrayEquals(pattern(4096, 7), back.array());
    }

    @Test
    void aFirstLoginGivesUpAfterTheRetriesWithTheConnectError() throws Exception {
        target.close();
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> initiator.login(PORTAL, IQN, IserSessionOptions.defaults()).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS));
        LoginFailedException f = (LoginFailedException) e.getCause();
        assertEquals(LoginFailedException.Kind.TRANSPORT, f.kind());
        assertTrue(f.getMessage().startsWith("connect to "), f.getMessage());
        assertEquals(List.of(), initiator.sessions());
    }

    @Test
    void aTargetRestartIsSurvivedByReinstatement() throws Exception {
        InitiatorSession s = (InitiatorSession) login(IserSessionOptions.defaults());
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 1))));
        target.close(); // every connection drops
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            io.add(s.write(0, 100 + i * 8L, 8, ByteBuffer.wrap(pattern(4096, 50 + i))));
        }
        Thread.sleep(300);
        assertEquals(IserSession.State.FAILED, s.state());
        target = runtime(128);
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        assertEquals(IserSession.State.LOGGED_IN, s.state());
        assertTrue(s.reinstatements.get() >= 1);
        assertEquals(IserInitiatorService.ISID_BASE + 1, target.sessions().get(0).isid(), "the same ISID");
        for (int i : new int[] {0, 15}) {
            ByteBuffer back = ByteBuffer.allocate(4096);
            await(s.read(0, 100 + i * 8L, 8, back));
            assertArrayEquals(pattern(4096, 50 + i), back.array());
        }
    }

    @Test
    void logoutWhileReinstatingStaysLoggedOut() throws Exception {
        IserSession s = login(IserSessionOptions.defaults());
        target.close();
        CompletableFuture<Void> pending = s.read(0, 0, 8, ByteBuffer.allocate(4096));
        Thread.sleep(300);
        assertEquals(IserSession.State.FAILED, s.state());
        s.logout().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(IserSession.State.FREE, s.state());
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(pending));
        assertEquals("session 1 logged out", e.getCause().getMessage());
        target = runtime(128);
        Thread.sleep(1500); // reinstatement attempts come every second: none may revive the session
        assertEquals(IserSession.State.FREE, s.state());
        assertEquals(List.of(), target.sessions());
        assertEquals(List.of(), initiator.sessions());
    }

    @Test
    void replacementTimeoutFailsIoInWords() throws Exception {
        IserSession s = login(IserSessionOptions.defaults().withTimeouts(Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(5)));
        target.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, 0, 8, ByteBuffer.allocate(4096))));
        assertEquals("session 1 to " + IQN + " failed: replacement timeout 1 s expired", e.getCause().getMessage());
    }

    @Test
    void chapAndMutualChapLogIn() throws Exception {
        directory.chapRef().set(new PortalGroup.ChapCredentials("joe", "secretsecret", "tgt", "tgtsecretsecret"));
        IserSession s = login(IserSessionOptions.defaults().withChap("joe", "secretsecret", "tgt", "tgtsecretsecret"));
        assertEquals(IserSession.State.LOGGED_IN, s.state());
        s.logout().toCompletableFuture().get(5, TimeUnit.SECONDS);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> login(IserSessionOptions.defaults().withChap("joe", "wrongwrongwrong", null, null)));
        LoginFailedException x = assertInstanceOf(LoginFailedException.class, e.getCause());
        assertEquals(LoginFailedException.Kind.AUTH, x.kind(), x.getMessage());
        assertEquals(24, x.kind().code());
    }

    @Test
    void aLongSendTargetsAnswerArrivesInPiecesAndWhole() throws Exception {
        InetSocketAddress other = new InetSocketAddress("192.0.2.2", 3260);
        List<TargetDirectory.SendTarget> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(new TargetDirectory.SendTarget(String.format("iqn.2003-01.org.linux-iscsi.t%03d.x8664:sn.0", i),
                    List.of("192.0.2.2:3260,1", "[fd00::2]:3260,2")));
        }
        IserTargetRuntime big = WindowedRuntimes.create(fabric, new TargetDirectory() {
            @Override public Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal) {
                return Optional.empty();
            }
            @Override public List<SendTarget> sendTargets(String initiatorName, InetSocketAddress portal) {
                return many;
            }
        }, 128);
        try {
            big.enable(other);
            List<DiscoveredTarget> found = initiator.discover(other).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(600, found.size(), "about 30 KB of keys, more than one 8 KiB Text Response");
            assertEquals("192.0.2.2:3260,1 iqn.2003-01.org.linux-iscsi.t000.x8664:sn.0", found.get(0).toString());
            assertEquals(new DiscoveredTarget("iqn.2003-01.org.linux-iscsi.t299.x8664:sn.0",
                    new InetSocketAddress("fd00::2", 3260), 2), found.get(599));
        } finally {
            big.close();
        }
    }

    @Test
    void discoveryAgainstTheTarget() throws Exception {
        List<DiscoveredTarget> found = initiator.discover(PORTAL).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(List.of(new DiscoveredTarget(IQN, PORTAL, 1)), found);
    }
}
