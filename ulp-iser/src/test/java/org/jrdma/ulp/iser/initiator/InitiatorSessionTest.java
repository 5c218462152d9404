package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.DiscoveredTarget;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The initiator's session against {@link ScriptedTarget} over the in-memory transport. */
class InitiatorSessionTest {
    static final InetSocketAddress PORTAL = new InetSocketAddress("192.0.2.11", 3260);
    static final String IQN = "iqn.2003-01.org.example:t1";
    static final long SIZE = 64L << 20;
    final MemoryTransport fabric = new MemoryTransport();
    ScriptedTarget target;
    IserInitiatorService initiator = new IserInitiatorService(fabric, "iqn.2026-12.org.jrdma:01:test");

    @AfterEach
    void tearDown() {
        initiator.close();
        if (target != null) {
            target.close();
        }
        fabric.close();
    }

    IserSession login(int window, IserSessionOptions o) throws Exception {
        target = new ScriptedTarget(fabric, PORTAL, SIZE, window);
        return initiator.login(PORTAL, IQN, o).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void loginScansTheLunAndItsCapacity() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        assertEquals(IserSession.State.LOGGED_IN, s.state());
        assertEquals(List.of(0), s.luns());
        assertEquals(SIZE / 512, s.capacity(0));
        assertEquals(512, s.blockSize(0));
        assertEquals(1, s.sid());
        assertEquals(List.of(s), initiator.sessions());
        assertEquals(IserInitiatorService.ISID_BASE + 1, target.logins.get(0).isid());
        assertEquals(0, target.logins.get(0).tsih());
        assertThrows(IllegalArgumentException.class, () -> s.capacity(3));
    }

    @Test
    void writeThenReadIsByteExactAt4k64k1m() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        long lba = 8;
        for (int size : new int[] {4096, 65536, 1 << 20}) {
            byte[] data = pattern(size, size);
            ByteBuffer src = ByteBuffer.wrap(data);
            int immBefore = target.immediateBytes.get();
            await(s.write(0, lba, size / 512, src));
            assertEquals(size, src.position(), "the source's position advances");
            assertEquals(Math.min(size, 8192), target.immediateBytes.get() - immBefore,
                    "immediate data = min(FirstBurstLength, TargetRecvDataSegmentLength)");
            assertArrayEquals(data, java.util.Arrays.copyOfRange(target.disk(), (int) lba * 512,
                    (int) lba * 512 + size));
            ByteBuffer dst = ByteBuffer.allocate(size);
            await(s.read(0, lba, size / 512, dst));
            assertEquals(size, dst.position());
            assertArrayEquals(data, dst.array());
            lba += size / 512;
        }
        await(s.flush(0));
        assertEquals(0, fabric.buffersInUse(), "every registered buffer went back to the pool");
    }

    @Test
    void thirtyTwoInFlightLandWhereTheyBelong() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            writes.add(s.write(0, i * 128L, 128, ByteBuffer.wrap(pattern(65536, i))));
        }
        await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        List<ByteBuffer> dsts = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            ByteBuffer d = ByteBuffer.allocate(65536);
            dsts.add(d);
            reads.add(s.read(0, i * 128L, 128, d));
        }
        await(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)));
        for (int i = 0; i < 32; i++) {
            assertArrayEquals(pattern(65536, i), dsts.get(i).array(), "I/O " + i);
        }
    }

    @Test
    void outOfRangeReadFailsWithIllegalRequestLbaOutOfRange() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, s.capacity(0), 1, ByteBuffer.allocate(512))));
        IserIoException x = assertInstanceOf(IserIoException.class, e.getCause());
        assertTrue(x.getMessage().contains("CHECK CONDITION, ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE"),
                x.getMessage());
        assertEquals(0x02, x.status());
        assertEquals(5, x.senseKey());
        assertEquals(0x21, x.asc());
        assertEquals(0, x.ascq());
        await(s.read(0, s.capacity(0) - 1, 1, ByteBuffer.allocate(512))); // the session goes on
    }

    @Test
    void commandsBeyondTheTargetsWindowWait() throws Exception {
        IserSession s = login(2, IserSessionOptions.defaults());
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            io.add(s.write(0, i * 8L, 8, ByteBuffer.wrap(pattern(4096, i))));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        assertEquals(0, target.windowViolations.get(), "no CmdSN beyond the MaxCmdSN the target advertised");
        assertTrue(target.commands.get() >= 35);
    }

    @Test
    void nopOutPingsAreAnswered() throws Exception {
        IserSessionOptions o = IserSessionOptions.defaults().withTimeouts(Duration.ofSeconds(120),
                Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(2));
        InitiatorSession s = (InitiatorSession) login(128, o);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.pingsAnswered() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(s.pingsAnswered() >= 3, "pings answered: " + s.pingsAnswered());
    }

    @Test
    void theTargetsPingIsAnsweredWithItsTtt() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        target.ping(0x1234);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (target.pingAnswers.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of(0x1234), target.pingAnswers);
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 3)))); // a zero window in the ping changed nothing
    }

    @Test
    void asyncLogoutRequestAndDropConnectionEndInReinstatement() throws Exception {
        InitiatorSession s = (InitiatorSession) login(128, IserSessionOptions.defaults());
        target.asyncEvent(1); // target requests logout
        waitForLogins(2);
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 4))));
        target.asyncEvent(2); // target will drop the connection
        waitForLogins(3);
        await(s.write(0, 8, 8, ByteBuffer.wrap(pattern(4096, 5))));
        assertEquals(IserSession.State.LOGGED_IN, s.state());
        assertEquals(2, s.reinstatements.get());
    }

    void waitForLogins(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (target.logins.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(n, target.logins.size());
    }

    @Test
    void unansweredPingDropsTheConnectionAndTheSessionReinstates() throws Exception {
        IserSessionOptions o = IserSessionOptions.defaults().withTimeouts(Duration.ofSeconds(120),
                Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofMillis(300));
        InitiatorSession s = (InitiatorSession) login(128, o);
        target.answerPings = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (target.logins.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(2, target.logins.size(), "the ping timeout dropped the connection, the session logged in again");
        target.answerPings = true;
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 1))));
    }

    @Test
    void closingTheServiceLogsOutAndRefusesNewWork() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        initiator.close();
        assertEquals(IserSession.State.FREE, s.state());
        assertEquals(List.of(), initiator.sessions());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> initiator.login(PORTAL, IQN).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertEquals("the iSER initiator is stopped", e.getCause().getMessage());
        assertThrows(ExecutionException.class,
                () -> initiator.discover(PORTAL).toCompletableFuture().get(5, TimeUnit.SECONDS));
    }

    @Test
    void logoutEndsTheSession() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        s.logout().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(IserSession.State.FREE, s.state());
        assertEquals(List.of(), initiator.sessions());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, 0, 1, ByteBuffer.allocate(512))));
        assertTrue(e.getCause().getMessage().contains("logged out"), e.getCause().getMessage());
    }

    @Test
    void connectionLossReinstatesWithTheSameIsidAndResumesIo() throws Exception {
        InitiatorSession s = (InitiatorSession) login(128, IserSessionOptions.defaults());
        await(s.write(0, 0, 8, ByteBuffer.wrap(pattern(4096, 7))));
        target.dropAll();
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            io.add(s.write(0, 64 + i * 8L, 8, ByteBuffer.wrap(pattern(4096, 100 + i))));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        assertEquals(IserSession.State.LOGGED_IN, s.state());
        assertEquals(1, s.reinstatements.get());
        assertEquals(target.logins.get(0).isid(), target.logins.get(1).isid(), "same ISID: reinstatement");
        assertEquals(0, target.logins.get(1).tsih(), "TSIH 0: a new session replaces the old one");
        ByteBuffer back = ByteBuffer.allocate(4096);
        await(s.read(0, 64 + 7 * 8L, 8, back));
        assertArrayEquals(pattern(4096, 107), back.array());
    }

    @Test
    void replacementTimeoutFailsPendingAndNewIo() throws Exception {
        IserSessionOptions o = IserSessionOptions.defaults().withTimeouts(Duration.ofMillis(600),
                Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(5));
        IserSession s = login(128, o);
        target.acceptLogins = false;
        target.dropAll();
        CompletableFuture<Void> pending = s.read(0, 0, 1, ByteBuffer.allocate(512));
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(pending));
        assertEquals("session 1 to " + IQN + " failed: replacement timeout 600 ms expired", e.getCause().getMessage());
        assertEquals(IserSession.State.FAILED, s.state());
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> await(s.read(0, 0, 1, ByteBuffer.allocate(512))));
        assertTrue(later.getCause().getMessage().contains("replacement timeout"));
    }

    @Test
    void aCommandNeverAnsweredIsRetriedThroughRecoveryThenFails() throws Exception {
        InitiatorSession s = (InitiatorSession) login(128, IserSessionOptions.defaults()
                .withCommandTimeout(Duration.ofMillis(200)));
        target.answerIo = false;
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, 0, 1, ByteBuffer.allocate(512))));
        assertEquals("READ(16) LUN 0: timed out after 6 tries of 200 ms", e.getCause().getMessage());
        assertEquals(6, s.commandTimeouts());
        target.answerIo = true;
        await(s.read(0, 0, 1, ByteBuffer.allocate(512)));
        assertEquals(IserSession.State.LOGGED_IN, s.state());
    }

    @Test
    void discoveryListsTargetsAndPortals() throws Exception {
        target = new ScriptedTarget(fabric, PORTAL, SIZE, 8);
        List<DiscoveredTarget> found = initiator.discover(PORTAL).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(2, found.size());
        assertEquals("192.0.2.11:3260,1 iqn.2003-01.org.example:t1", found.get(0).toString());
        assertEquals("iqn.2003-01.org.example:t2", found.get(1).targetName());
        assertEquals(PORTAL, found.get(1).portal());
    }

    @Test
    void aRejectedDiscoverySaysWhy() throws Exception {
        target = new ScriptedTarget(fabric, PORTAL, SIZE, 8);
        target.rejectText = org.jrdma.ulp.iser.pdu.RejectReason.INVALID_PDU_FIELD;
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> initiator.discover(PORTAL).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertEquals("discovery: bad SendTargets answer: the target rejected our SendTargets Text Request with"
                + " reason INVALID_PDU_FIELD (0x09)", e.getCause().getMessage());
    }

    @Test
    void secondLoginToTheSameTargetAndPortalIsRefused() throws Exception {
        IserSession s = login(128, IserSessionOptions.defaults());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> initiator.login(PORTAL, IQN, IserSessionOptions.defaults()).toCompletableFuture()
                        .get(5, TimeUnit.SECONDS));
        assertInstanceOf(SessionExistsException.class, e.getCause());
        assertNotEquals(IserSession.State.FREE, s.state());
    }

    @Test
    void refusedLoginFailsInWords() throws Exception {
        target = new ScriptedTarget(fabric, PORTAL, SIZE, 8);
        target.acceptLogins = false;
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> initiator.login(PORTAL, IQN, IserSessionOptions.defaults()).toCompletableFuture()
                        .get(5, TimeUnit.SECONDS));
        String why = e.getCause().getMessage();
        assertTrue(why.contains("login status 0x0203 TARGET_NOT_FOUND"), why);
        assertEquals(List.of(), initiator.sessions());
    }
}
