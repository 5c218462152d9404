package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

class PacketQueueTest {
    static InetAddress addr(int i) throws Exception {
        return InetAddress.getByAddress(new byte[] {127, 0, (byte) (i >> 8), (byte) i});
    }

    @Test
    void fifoWithEachPacketsAddressesAcrossGrowthAndWrap() throws Exception {
        PacketQueue q = new PacketQueue();
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        int next = 0;
        int expect = 0;
        // interleave adds and polls so the ring wraps before and after it grows
        for (int round = 0; round < 50; round++) {
            for (int k = 0; k < round % 7 + 1; k++, next++) {
                q.add(Unpooled.buffer(4).writeInt(next), addr(next), addr(next + 1000));
            }
            for (int k = 0; k < round % 5 + 1; k++) {
                ByteBuf b = q.poll();
                if (b == null) {
                    break;
                }
                assertEquals(expect, b.getInt(0));
                assertEquals(addr(expect), q.src());
                assertEquals(addr(expect + 1000), q.dst());
                expect++;
            }
        }
        ByteBuf b;
        while ((b = q.poll()) != null) {
            assertEquals(expect++, b.getInt(0));
        }
        assertEquals(next, expect);
        assertTrue(q.isEmpty());
    }

    @Test
    void twoProducersOneConsumerLoseNothingAndKeepEachProducersOrder() throws Exception {
        PacketQueue q = new PacketQueue();
        int n = 20_000;
        InetAddress a = addr(1);
        InetAddress b = addr(2);
        Thread[] producers = new Thread[2];
        for (int p = 0; p < 2; p++) {
            int id = p;
            producers[p] = new Thread(() -> {
                for (int i = 0; i < n; i++) {
                    ByteBuf x = Unpooled.buffer(8).writeInt(id).writeInt(i);
                    while (!q.add(x, id == 0 ? a : b, a)) { // full (LIMIT): wait for the consumer
                        Thread.onSpinWait();
                    }
                }
            });
            producers[p].start();
        }
        int[] last = {-1, -1};
        int got = 0;
        long end = System.nanoTime() + 20_000_000_000L;
        while (got < 2 * n && System.nanoTime() < end) {
            ByteBuf x = q.poll();
            if (x == null) {
                Thread.onSpinWait();
                continue;
            }
            int id = x.getInt(0);
            int i = x.getInt(4);
            assertEquals(last[id] + 1, i, "producer " + id + " out of order");
            assertSame(id == 0 ? a : b, q.src());
            last[id] = i;
            got++;
        }
        for (Thread t : producers) {
            t.join();
        }
        assertEquals(2 * n, got);
        assertFalse(q.poll() != null);
        assertTrue(q.isEmpty());
    }

    /** Bounded: a flood to a live QP is refused past {@link PacketQueue#LIMIT}, in order. */
    @Test
    void takesUpToTheLimitThenRefusesAndTakesAgainOnceDrained() throws Exception {
        PacketQueue q = new PacketQueue();
        InetAddress a = InetAddress.getByName("127.0.0.1");
        for (int i = 0; i < PacketQueue.LIMIT; i++) {
            assertTrue(q.add(Unpooled.buffer(4).writeInt(i), a, a), "packet " + i);
        }
        ByteBuf extra = Unpooled.buffer(4).writeInt(-1);
        assertFalse(q.add(extra, a, a), "the limit");
        assertEquals(1, extra.refCnt(), "a refused buffer stays the caller's to release");
        ByteBuf first = q.poll();
        assertNotNull(first);
        assertEquals(0, first.getInt(0), "first in, first out");
        assertTrue(q.add(extra, a, a), "room again after one left");
        int n = 1;
        ByteBuf b;
        int last = 0;
        while ((b = q.poll()) != null) {
            last = b.getInt(0);
            n++;
        }
        assertEquals(PacketQueue.LIMIT + 1, n);
        assertEquals(-1, last, "the late packet is last");
    }
}
