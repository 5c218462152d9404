package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.ulp.iser.IserIoException;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.jrdma.ulp.iser.conn.TestFabrics;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.jrdma.ulp.iser.target.WindowedRuntimes;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, faults: the initiator's device goes away in mid-I/O ({@code rdma link delete}), nothing is sent to
 * the target (as on Linux: a removed device sends no DREQ). The target finds the dead connection (NOP-In
 * unanswered, or its own RDMA retries) and cleans the session up; the initiator fails the I/O after its
 * replacement_timeout, and reinstates the session once the device is back.
 */
class ConnectionLossOverRxeTest {
    static final long SIZE = 64L << 20;
    static final int IOS = 1024;
    static final Duration REPLACEMENT = Duration.ofSeconds(2);
    // LIO's nopin_timeout / nopin_response_timeout, 15 s / 30 s by default, set to 1 s / 2 s
    @AutoClose
    final RxeStack stack = new RxeStack("iqn.2026-12.org.jrdma:01:loss", SIZE,
            (t, d) -> WindowedRuntimes.pinging(t, d, Duration.ofSeconds(1), Duration.ofSeconds(2)));

    @Test
    void initiatorDeviceRemovedMidIoTargetCleansUpInitiatorFailsThenReinstates() throws Exception {
        stack.target.enable(stack.portal);
        IserSessionOptions opts = IserSessionOptions.defaults().withTimeouts(REPLACEMENT, Duration.ofSeconds(5),
                Duration.ofSeconds(5), Duration.ofSeconds(5));
        long targetQps = TestFabrics.count(stack.fabric.targetDevice(), ResourceType.QP);
        long targetMrs = TestFabrics.count(stack.fabric.targetDevice(), ResourceType.MR);
        IserSession s = stack.initiator.login(stack.portal, InitiatorTargetEndToEndTest.IQN, opts).toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
        TestIo.writeReadBack(s, 0, 4096, 1 << 20);
        // 1 GiB of writes over the first 32 MiB (cmds_max 128 in flight, the rest waiting); the device goes once
        // 4 are done, so most are on the wire or queued then
        byte[] data = pattern(1 << 20, 7);
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < IOS; i++) {
            io.add(s.write(0, (i % 32) * 2048L, 2048, ByteBuffer.wrap(data)));
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (io.stream().filter(CompletableFuture::isDone).count() < 4 && System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }

        UnregisterReport gone = stack.fabric.removeInitiatorDevice();
        assertTrue(gone.leaked().isEmpty(), "ib-core had to destroy what a client left: " + gone.leaked());

        // the target: NOP-In unanswered (or an RDMA retry error) drops the connection, the session ends
        until(() -> stack.target.sessions().isEmpty() && stack.targetTransport.connections().isEmpty(), 30_000,
                "target session not cleaned up: " + stack.target.sessions());
        until(() -> TestFabrics.count(stack.fabric.targetDevice(), ResourceType.QP) == targetQps
                && TestFabrics.count(stack.fabric.targetDevice(), ResourceType.MR) == targetMrs, 10_000,
                "target QP/MR left: " + stack.fabric.targetDevice().resources());

        // the initiator: each I/O either made it before the loss or fails with the replacement timeout, none hangs
        int failed = 0;
        for (CompletableFuture<Void> f : io) {
            try {
                f.get(REPLACEMENT.toMillis() + 20_000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                assertReplacementTimeout(e);
                failed++;
            }
        }
        assertTrue(failed > 0, "all " + IOS + " writes done before the device went: not mid-I/O");
        assertEquals(IserSession.State.FAILED, s.state());
        ExecutionException late = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> s.read(0, 0, 8, ByteBuffer.allocate(4096)).get(10, TimeUnit.SECONDS));
        assertReplacementTimeout(late);
        assertTrue(stack.initiatorTransport.connections().isEmpty());
        until(() -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("iser-cq-")),
                10_000, "a completion thread outlived its connection");
        System.out.println("connection loss: " + failed + " of " + IOS + " writes failed");

        // the link comes back: the session logs in again (same ISID, TSIH 0) and serves byte-exact
        stack.fabric.restoreInitiatorDevice();
        until(() -> s.state() == IserSession.State.LOGGED_IN, 30_000, "not reinstated");
        TestIo.writeReadBack(s, 1 << 16, 4096, 1 << 20);
        assertEquals(1, stack.target.sessions().size());
        s.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
        until(() -> stack.target.sessions().isEmpty(), 10_000, "logged out, still a target session");
    }

    static void assertReplacementTimeout(ExecutionException e) {
        IserIoException io = assertInstanceOf(IserIoException.class, e.getCause());
        assertTrue(io.getMessage().endsWith("failed: replacement timeout 2 s expired"), io.getMessage());
    }

    static void until(BooleanSupplier done, long ms, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(what + " (after " + ms + " ms)");
            }
            Thread.sleep(50);
        }
    }
}
