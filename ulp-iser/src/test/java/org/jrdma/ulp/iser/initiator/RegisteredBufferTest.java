package org.jrdma.ulp.iser.initiator;

import static org.jrdma.ulp.iser.initiator.TestIo.await;
import static org.jrdma.ulp.iser.initiator.TestIo.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.ulp.iser.IserIoBuffer;
import org.jrdma.ulp.iser.IserSession;
import org.jrdma.ulp.iser.IserSessionOptions;
import org.jrdma.ulp.iser.conn.MemoryTransport;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiLun;
import org.jrdma.ulp.iser.target.IserTargetRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Zero-copy I/O ({@link IserIoBuffer}) against the real target runtime over the in-memory transport: the bytes
 * land in and leave from the caller's registered memory, no pool buffer is taken, the registration is made once
 * per connection and dropped on close.
 */
class RegisteredBufferTest {
    static final long SIZE = 16L << 20;
    /** SEND_WITH_INV forbidden, as over RdmaIserTransport: registered memory keeps its STag across I/Os. */
    final MemoryTransport fabric = new MemoryTransport(false);
    final InitiatorTargetEndToEndTest.Directory directory = new InitiatorTargetEndToEndTest.Directory(
            new LunTable(new TreeMap<>(java.util.Map.of(0, new ScsiLun(new RamdiskBackstore("rd0", SIZE), false)))));
    final IserInitiatorService initiator = new IserInitiatorService(fabric, "iqn.2026-12.org.jrdma:01:zc");
    IserTargetRuntime target = InitiatorTargetEndToEndTest.enabledRuntime(fabric, directory, 128);

    @AfterEach
    void tearDown() {
        initiator.close();
        target.close();
        fabric.close();
    }

    InitiatorSession login() throws Exception {
        return (InitiatorSession) initiator.login(InitiatorTargetEndToEndTest.PORTAL, InitiatorTargetEndToEndTest.IQN,
                IserSessionOptions.defaults()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void writeAndReadThroughRegisteredMemoryWithoutPoolBuffers() throws Exception {
        IserSession s = login();
        byte[] data = pattern(1 << 20, 7);
        try (IserIoBuffer out = s.allocateBuffer(2 << 20); IserIoBuffer in = s.allocateBuffer(2 << 20)) {
            out.buffer().position(4096).put(data);
            int pooled = fabric.allocations();
            await(s.write(0, 2048, 2048, out, 4096));
            await(s.read(0, 2048, 2048, in, 512));
            assertEquals(pooled, fabric.allocations(), "no pool buffer for registered I/O");
            assertEquals(2, fabric.registrations(), "each memory registered once");
            byte[] back = new byte[data.length];
            in.buffer().position(512).get(back);
            assertArrayEquals(data, back);
            ByteBuffer copied = ByteBuffer.allocate(1 << 20);
            await(s.read(0, 2048, 2048, copied));
            assertArrayEquals(data, copied.array(), "the copying API reads what the registered WRITE wrote");
            assertEquals(0, in.buffer().get(0), "bytes before the offset untouched");
        }
    }

    @Test
    void thirtyTwoInFlightFromOneRegisteredDirectBuffer() throws Exception {
        IserSession s = login();
        ByteBuffer mine = ByteBuffer.allocateDirect(32 * 65536);
        try (IserIoBuffer b = s.registerBuffer(mine)) {
            for (int i = 0; i < 32; i++) {
                mine.put(i * 65536, pattern(65536, 100 + i));
            }
            List<CompletableFuture<Void>> io = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                io.add(s.write(0, i * 128L, 128, b, i * 65536));
            }
            await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
            mine.clear();
            mine.put(new byte[32 * 65536]).clear();
            io.clear();
            for (int i = 31; i >= 0; i--) {
                io.add(s.read(0, i * 128L, 128, b, i * 65536));
            }
            await(CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)));
            for (int i = 0; i < 32; i++) {
                byte[] got = new byte[65536];
                mine.get(i * 65536, got);
                assertArrayEquals(pattern(65536, 100 + i), got, "I/O " + i);
            }
            assertEquals(1, fabric.registrations());
        }
    }

    @Test
    void badUseIsRefusedInWords() throws Exception {
        IserSession s = login();
        assertThrows(IllegalArgumentException.class, () -> s.registerBuffer(ByteBuffer.allocate(4096)));
        assertThrows(IllegalArgumentException.class, () -> s.allocateBuffer(0));
        IserIoBuffer b = s.allocateBuffer(8192);
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class,
                () -> s.read(0, 0, 16, b, 512));
        assertEquals("8192 bytes at offset 512 do not fit the I/O buffer of 8192 bytes", tooBig.getMessage());
        try (IserInitiatorService second = new IserInitiatorService(fabric, "iqn.2026-12.org.jrdma:01:other");
                IserSession other = second.login(InitiatorTargetEndToEndTest.PORTAL, InitiatorTargetEndToEndTest.IQN)
                        .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> other.read(0, 0, 1, b, 0));
            assertEquals("the I/O buffer is not one of this session's", foreign.getMessage());
        }
        b.close();
        assertThrows(IllegalStateException.class, () -> s.write(0, 0, 1, b, 0));
        assertEquals(0, fabric.registeredInUse(), "closing deregistered it");
    }

    @Test
    void closeWithIoInFlightDeregistersWhenTheLastEnds() throws Exception {
        IserSession s = login();
        IserIoBuffer b = s.allocateBuffer(1 << 20);
        CompletableFuture<Void> w = s.write(0, 0, 2048, b, 0);
        b.close();
        await(w);
        assertEquals(0, fabric.registeredInUse());
    }

    @Test
    void aReinstatedSessionRegistersTheMemoryOnItsNewConnection() throws Exception {
        InitiatorSession s = login();
        try (IserIoBuffer b = s.allocateBuffer(4096)) {
            b.buffer().put(pattern(4096, 3));
            await(s.write(0, 64, 8, b, 0));
            target.close(); // every connection drops
            b.buffer().put(pattern(4096, 4));
            CompletableFuture<Void> again = s.write(0, 72, 8, b, 0);
            target = InitiatorTargetEndToEndTest.enabledRuntime(fabric, directory, 128);
            await(again);
            assertTrue(s.reinstatements.get() >= 1);
            assertEquals(2, fabric.registrations(), "registered again on the new connection");
        }
        ByteBuffer back = ByteBuffer.allocate(8192);
        await(s.read(0, 64, 16, back));
        byte[] want = new byte[8192];
        System.arraycopy(pattern(4096, 3), 0, want, 0, 4096);
        System.arraycopy(pattern(4096, 4), 0, want, 4096, 4096);
        assertArrayEquals(want, back.array());
    }

    /** A target allowed to invalidate the initiator's STags would kill a long-lived registration: copies instead. */
    @Test
    void aTargetThatMayInvalidateGetsCopiesStillByteExact() throws Exception {
        try (MemoryTransport invalidating = new MemoryTransport(true);
                IserInitiatorService other = new IserInitiatorService(invalidating, "iqn.2026-12.org.jrdma:01:inv")) {
            IserTargetRuntime t = InitiatorTargetEndToEndTest.enabledRuntime(invalidating, directory, 128);
            try (IserSession s = other.login(InitiatorTargetEndToEndTest.PORTAL, InitiatorTargetEndToEndTest.IQN)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS); IserIoBuffer b = s.allocateBuffer(65536)) {
                b.buffer().put(pattern(65536, 9));
                int pooled = invalidating.allocations();
                await(s.write(0, 512, 128, b, 0));
                b.buffer().put(new byte[65536]);
                await(s.read(0, 512, 128, b, 0));
                byte[] got = new byte[65536];
                b.buffer().get(got);
                assertArrayEquals(pattern(65536, 9), got);
                assertEquals(pooled + 2, invalidating.allocations(), "each I/O copied through a pool buffer");
                assertEquals(0, invalidating.registrations());
            } finally {
                t.close();
            }
        }
    }
}
