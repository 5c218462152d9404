package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.conn.IserConnectionConfig;
import org.jrdma.ulp.iser.conn.RdmaIserTransport;
import org.jrdma.ulp.iser.conn.TestFabrics;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The whole stack on verbs: initiator and target runtime over RdmaIserTransport on two hw-rxe devices. */
class InitiatorOverRxeTest {
    static final long SIZE = 64L << 20;
    @AutoClose
    final RxeStack stack = new RxeStack("iqn.2026-12.org.jrdma:01:rxe", SIZE, IserTargetRuntime::new);

    @Test
    void loginIoAndLogoutOverRoce() throws Exception {
        stack.target.enable(stack.portal);
        IserSession s = stack.initiator.login(stack.portal, InitiatorTargetEndToEndTest.IQN).toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
        assertEquals(SIZE / 512, s.capacity(0));
        TestIo.writeReadBack(s, 0, 4096, 65536, 1 << 20);
        List<CompletableFuture<Void>> io = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            io.add(s.write(0, 8192 + i * 128L, 128, ByteBuffer.wrap(pattern(65536, i))));
        }
        await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
        ByteBuffer back = ByteBuffer.allocate(65536);
        await(s.read(0, 8192 + 31 * 128L, 128, back));
        assertArrayEquals(pattern(65536, 31), back.array());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(s.read(0, s.capacity(0), 1, ByteBuffer.allocate(512))));
        assertTrue(e.getCause().getMessage().endsWith("ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE"));
        s.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(IserSession.State.FREE, s.state());
    }

    /** Zero-copy over verbs: the target's RDMA READ/WRITE move the bytes straight from and into caller memory. */
    @Test
    void registeredCallerMemoryAtQueueDepth32OverRoce() throws Exception {
        stack.target.enable(stack.portal);
        IserSession s = stack.initiator.login(stack.portal, InitiatorTargetEndToEndTest.IQN).toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
        ByteBuffer mine = ByteBuffer.allocateDirect(32 * 65536);
        try (org.jrdma.ulp.iser.IserIoBuffer b = s.registerBuffer(mine);
                org.jrdma.ulp.iser.IserIoBuffer big = s.allocateBuffer(1 << 20)) {
            List<CompletableFuture<Void>> io = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                mine.put(i * 65536, pattern(65536, 200 + i));
                io.add(s.write(0, i * 128L, 128, b, i * 65536));
            }
            await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
            ByteBuffer back = ByteBuffer.allocate(32 * 65536);
            await(s.read(0, 0, 4096, back));
            for (int i = 0; i < 32; i++) {
                assertArrayEquals(pattern(65536, 200 + i), java.util.Arrays.copyOfRange(back.array(), i * 65536,
                        (i + 1) * 65536), "registered WRITE " + i);
            }
            await(s.read(0, 0, 2048, big, 0));
            byte[] got = new byte[1 << 20];
            big.buffer().get(got);
            assertArrayEquals(java.util.Arrays.copyOf(back.array(), 1 << 20), got, "registered READ");
        }
        s.logout().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A pool of 4 MiB for 32 x 1 MiB in flight: commands wait for buffers instead of failing. */
    @Test
    void anEmptyPoolMakesCommandsWaitNotFail() throws Exception {
        stack.target.enable(stack.portal);
        try (RdmaIserTransport small = new RdmaIserTransport(stack.fabric.cm(), stack.fabric.initiatorConfig(
                IserConnectionConfig.defaults().withPool(1 << 20, 1 << 20, 4L << 20)));
                IserInitiatorService other = new IserInitiatorService(small, "iqn.2026-12.org.jrdma:01:small")) {
            IserSession s = other.login(stack.portal, InitiatorTargetEndToEndTest.IQN).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS);
            List<CompletableFuture<Void>> io = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                io.add(s.write(0, i * 2048L, 2048, ByteBuffer.wrap(pattern(1 << 20, i))));
            }
            await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
            ByteBuffer back = ByteBuffer.allocate(1 << 20);
            await(s.read(0, 31 * 2048L, 2048, back));
            assertArrayEquals(pattern(1 << 20, 31), back.array());
        }
    }

    /** The benchmark's two loads through iser_io, 1 MiB and 4 KiB at QD 32 (speed printed, not asserted). */
    @Test
    void iserIoAtQueueDepth32() throws Exception {
        stack.target.enable(stack.portal);
        stack.initiator.login(stack.portal, InitiatorTargetEndToEndTest.IQN).toCompletableFuture().get(20, TimeUnit.SECONDS);
        for (String[] run : new String[][] {
            {"--bs", "1m", "--size", "32m", "--write"},
            {"--bs", "1m", "--size", "32m", "--verify"},
            {"--bs", "4k", "--size", "4m", "--write"},
            {"--bs", "4k", "--size", "4m", "--verify"}}) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            StringBuilder err = new StringBuilder();
            List<String> args = new ArrayList<>(List.of("-s", "1", "--qd", "32", "--pattern", "5aa5c33c"));
            args.addAll(List.of(run));
            int status = new org.jrdma.ulp.iser.shell.IserIo(stack.initiator, new java.io.PrintStream(bytes, true),
                    err).main(args.toArray(String[]::new));
            String out = bytes.toString();
            System.out.print("iser_io " + String.join(" ", args) + "\n" + out);
            assertEquals(0, status, err.toString());
            assertTrue(!run[run.length - 1].equals("--verify") || out.contains("verify: OK"), out);
        }
    }
}
