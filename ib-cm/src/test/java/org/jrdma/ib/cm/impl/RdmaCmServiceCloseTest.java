package org.jrdma.ib.cm.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.mad.impl.MadLayer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RdmaCmService#close} ends the "rdma-cm" thread before it returns (a stopped bundle leaves no
 * thread), and does not wait for itself when a handler calls it. No device is needed: an address no
 * port can reach gives ADDR_ERROR, delivered on the CM thread.
 */
class RdmaCmServiceCloseTest {
    /** Rounds of start / event / close: the thread outlives the executor's termination only briefly. */
    static final int ROUNDS = 100;

    final IbCore core = IbCore.newInstance();
    final MadLayer mad = new MadLayer(core);

    @AfterEach
    void down() {
        mad.close();
    }

    /** The live threads named {@code name}. */
    static Set<Thread> alive(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(name))
                .collect(java.util.stream.Collectors.toSet());
    }

    /** An id whose ADDR_ERROR comes on the CM thread; {@code onEvent} runs there. */
    static RdmaCmId unreachable(RdmaCmService cm, Runnable onEvent, BlockingQueue<Thread> on) throws Exception {
        RdmaCmId id = cm.createId((x, ev) -> {
            assertEquals(RdmaCmEventType.ADDR_ERROR, ev.type());
            on.add(Thread.currentThread());
            onEvent.run();
            return 0;
        }, RdmaPortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(InetAddress.getByName("fec0::1"), 1), 2000);
        return id;
    }

    @Test
    void closeLeavesNoRdmaCmThread() throws Exception {
        Set<Thread> before = alive("rdma-cm"); // an earlier test's, not this one's
        for (int i = 0; i < ROUNDS; i++) {
            RdmaCmService cm = new RdmaCmService(core, mad);
            BlockingQueue<Thread> on = new LinkedBlockingQueue<>();
            RdmaCmId id = unreachable(cm, () -> { }, on);
            Thread t = on.poll(10, TimeUnit.SECONDS);
            assertNotNull(t, "no ADDR_ERROR");
            assertEquals("rdma-cm", t.getName());
            id.close();
            cm.close();
            assertFalse(t.isAlive(), "the rdma-cm thread is still alive after close, round " + i);
            Set<Thread> left = alive("rdma-cm");
            left.removeAll(before);
            assertEquals(Set.of(), left, "round " + i);
        }
    }

    @Test
    void closeFromAHandlerDoesNotWaitForItsOwnThread() throws Exception {
        RdmaCmService cm = new RdmaCmService(core, mad);
        BlockingQueue<Thread> on = new LinkedBlockingQueue<>();
        BlockingQueue<Long> tookNs = new LinkedBlockingQueue<>();
        unreachable(cm, () -> {
            long t0 = System.nanoTime();
            cm.close();
            tookNs.add(System.nanoTime() - t0);
        }, on);
        Thread t = on.poll(10, TimeUnit.SECONDS);
        assertNotNull(t, "no ADDR_ERROR");
        Long ns = tookNs.poll(10, TimeUnit.SECONDS);
        assertNotNull(ns, "close on the CM thread did not return");
        assertTrue(ns < TimeUnit.SECONDS.toNanos(2), "close on the CM thread took " + ns / 1_000_000 + " ms");
        t.join(5000);
        assertFalse(t.isAlive(), "the rdma-cm thread did not end after a handler closed the CM");
        cm.close(); // again, from here: already closed
    }
}
