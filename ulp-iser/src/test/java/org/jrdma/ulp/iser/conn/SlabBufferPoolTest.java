package org.jrdma.ulp.iser.conn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The slab pool on a hw-loopback PD: size classes, keys and addresses, reuse, exhaustion, deregistration. */
class SlabBufferPoolTest {
    IbCore core;
    LoopbackDevice lo;
    IbDevice dev;
    ProtectionDomain pd;

    @BeforeEach
    void up() {
        core = IbCore.newInstance();
        lo = new LoopbackDevice(new LoopbackFabric(), "pool%d", 1, 0);
        dev = lo.register(core.registrar()).device();
        pd = dev.allocPd(IbResources.OWNER);
    }

    @AfterEach
    void down() {
        pd.dealloc();
        lo.close();
    }

    /** 1 MiB buffers at most, 4 MiB slabs, 8 MiB registered at most. */
    SlabBufferPool pool() {
        return new SlabBufferPool(pd, IserConnectionConfig.ofQueueDepth(8).withPool(1 << 20, 4 << 20, 8L << 20));
    }

    @Test
    void sizeClassesKeysAndAddresses() {
        SlabBufferPool p = pool();
        IserBuffer a = p.allocate(1);
        IserBuffer b = p.allocate(4097);
        IserBuffer c = p.allocate(1 << 20);
        assertEquals(4096, a.capacity());
        assertEquals(8192, b.capacity());
        assertEquals(1 << 20, c.capacity());
        assertEquals(4096, a.buffer().remaining());
        assertEquals(3, p.slabs(), "one slab per class used");
        IserBuffer a2 = p.allocate(100);
        assertEquals(a.rkey(), a2.rkey(), "same slab, same MR");
        assertEquals(4096, Math.abs(a2.va() - a.va()), "carved next to each other");
        assertNotEquals(a.rkey(), b.rkey());
        a.buffer().put(0, (byte) 7);
        assertEquals(0, a2.buffer().get(0), "no overlap");
        long va = a.va();
        a.close();
        a.close(); // once only: a second close returns nothing twice
        IserBuffer again = p.allocate(10);
        assertEquals(va, again.va(), "the freed buffer comes back first");
        assertNotEquals(va, p.allocate(10).va(), "and only once");
        p.destroy();
        assertEquals(0, IserFabric.count(dev, ResourceType.MR));
        assertThrows(IserTransportException.class, () -> p.allocate(10));
        b.close(); // after destroy: harmless
    }

    @Test
    void exhaustionAndTooLargeFailWithAClearMessage() {
        SlabBufferPool p = pool();
        List<IserBuffer> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            held.add(p.allocate(1 << 20));
        }
        assertEquals(8L << 20, p.registeredBytes());
        IserTransportException e = assertThrows(IserTransportException.class, () -> p.allocate(1 << 20));
        assertTrue(e.getMessage().startsWith("iSER buffer pool exhausted: every 1048576-byte buffer is in use"),
                e.getMessage());
        assertThrows(IserTransportException.class, () -> p.allocate(4096), "nothing left to register a 4 KiB slab");
        held.get(3).close();
        assertEquals(1 << 20, p.allocate(1 << 20).capacity());
        e = assertThrows(IserTransportException.class, () -> p.allocate((1 << 20) + 1));
        assertEquals("iSER buffer of 1048577 bytes: the pool serves 0..1048576", e.getMessage());
        p.destroy();
    }

    /** Caller memory: its own MR over exactly its bytes, deregistered by close or by the pool's teardown. */
    @Test
    void registeredCallerMemoryHasItsOwnMrUntilClosed() {
        SlabBufferPool p = pool();
        java.nio.ByteBuffer mine = java.nio.ByteBuffer.allocateDirect(3 * 4096 + 100).position(7);
        IserBuffer r = p.register(mine);
        assertEquals(3 * 4096 + 100, r.capacity(), "the whole buffer, whatever its position");
        assertEquals(1, IserFabric.count(dev, ResourceType.MR));
        r.buffer().put(5, (byte) 42);
        assertEquals(42, mine.get(5), "the same memory, no copy");
        IserBuffer other = p.register(java.nio.ByteBuffer.allocateDirect(4096));
        assertNotEquals(r.rkey(), other.rkey());
        r.close();
        r.close();
        assertEquals(1, IserFabric.count(dev, ResourceType.MR), "close deregisters its MR only");
        p.destroy();
        assertEquals(0, IserFabric.count(dev, ResourceType.MR), "the teardown takes the rest");
        other.close(); // after the teardown: nothing left to do, no error
        IserTransportException closed = assertThrows(IserTransportException.class,
                () -> p.register(java.nio.ByteBuffer.allocateDirect(4096)));
        assertEquals("iSER buffer pool: the connection is closed", closed.getMessage());
    }
}
