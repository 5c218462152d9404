package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;

/** The packet slots: reuse without allocation, exact accounting, and no slot handed out twice. */
class PacketPoolTest {

    @Test
    void aReleasedSlotIsTheNextOneTakenAndComesBackEmpty() {
        long before = PacketPool.outstanding();
        ByteBuf a = PacketPool.buffer(100);
        assertEquals(before + 1, PacketPool.outstanding());
        assertTrue(a.isDirect() && a.hasMemoryAddress());
        assertEquals(0, a.readerIndex());
        assertEquals(0, a.writerIndex());
        assertEquals(256, a.capacity());
        a.writeLong(0x1122334455667788L).readByte();
        assertTrue(a.release());
        assertEquals(before, PacketPool.outstanding());
        ByteBuf b = PacketPool.buffer(200);
        assertSame(a, b, "the stack gives back the slot just returned");
        assertEquals(1, b.refCnt());
        assertEquals(0, b.readerIndex());
        assertEquals(0, b.writerIndex());
        b.release();
    }

    @Test
    void sizesPickTheSmallestSlotThatHoldsThePacket() {
        ByteBuf ack = PacketPool.buffer(20);
        ByteBuf mtu1024 = PacketPool.buffer(1024 + 32);
        ByteBuf mtu4096 = PacketPool.buffer(4096 + 36);
        ByteBuf jumbo = PacketPool.buffer(9000);
        try {
            assertEquals(256, ack.capacity());
            assertEquals(1024 + 128, mtu1024.capacity());
            assertEquals(4096 + 128, mtu4096.capacity());
            assertEquals(9000, jumbo.capacity(), "larger than any RoCE packet: from the Netty pool, exact");
            // a slot does not grow into its neighbour
            ack.writerIndex(256);
            assertThrows(IndexOutOfBoundsException.class, () -> ack.writeByte(1));
        } finally {
            ack.release();
            mtu1024.release();
            mtu4096.release();
            jumbo.release();
        }
    }

    @Test
    void retainedSlotsComeBackOnTheLastReleaseOnly() {
        long before = PacketPool.outstanding();
        ByteBuf a = PacketPool.buffer(64);
        a.retain();
        assertFalse(a.release());
        assertEquals(before + 1, PacketPool.outstanding());
        assertTrue(a.release());
        assertEquals(before, PacketPool.outstanding());
        assertThrows(IllegalReferenceCountException.class, a::release, "a second release is refused, as in Netty");
        assertEquals(before, PacketPool.outstanding());
    }

    @Test
    void slotsDoNotOverlap() {
        List<ByteBuf> held = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // more than one chunk of 4224-byte slots
            ByteBuf b = PacketPool.buffer(4000);
            b.writerIndex(b.capacity());
            b.setZero(0, b.capacity());
            held.add(b);
        }
        for (int i = 0; i < held.size(); i++) {
            ByteBuf b = held.get(i);
            for (int k = 0; k < b.capacity(); k += 8) {
                b.setLong(k, i * 1_000_003L + k);
            }
        }
        for (int i = 0; i < held.size(); i++) {
            ByteBuf b = held.get(i);
            for (int k = 0; k < b.capacity(); k += 8) {
                assertEquals(i * 1_000_003L + k, b.getLong(k), "slot " + i + " at " + k);
            }
            b.release();
        }
    }

    /**
     * Taken on one thread and released on another, as packets are: every slot is owned by one thread at a
     * time (each writes its stamp and reads it back), and all come back.
     */
    @Test
    void slotsCrossThreadsWithoutBeingHandedOutTwice() throws Exception {
        long before = PacketPool.outstanding();
        int n = 200_000;
        BlockingQueue<ByteBuf> q = new ArrayBlockingQueue<>(512);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread[] producers = new Thread[2];
        for (int t = 0; t < producers.length; t++) {
            long stamp = t + 1;
            producers[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        ByteBuf b = PacketPool.buffer(i % 3 == 0 ? 64 : i % 3 == 1 ? 1000 : 4000);
                        b.writeLong(stamp << 32 | i);
                        if (b.getLong(0) != (stamp << 32 | i)) {
                            throw new AssertionError("slot written by another thread");
                        }
                        q.put(b);
                    }
                } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                }
            });
            producers[t].start();
        }
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < 2 * n; i++) {
                    ByteBuf b = q.poll(10, TimeUnit.SECONDS);
                    if (b == null) {
                        throw new AssertionError("producers stopped");
                    }
                    long v = b.getLong(0);
                    // while queued no one else may have taken it: its stamp is still the producer's
                    if (b.readableBytes() != 8 || v >>> 32 == 0 || v >>> 32 > 2) {
                        throw new AssertionError("slot reused while still held: " + Long.toHexString(v));
                    }
                    b.release();
                }
            } catch (Throwable e) {
                failed.compareAndSet(null, e);
            }
        });
        consumer.start();
        for (Thread t : producers) {
            t.join(60_000);
        }
        consumer.join(60_000);
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        assertEquals(before, PacketPool.outstanding());
        assertTrue(PacketPool.slots() < 4096, "slots are reused: " + PacketPool.slots() + " made for 400,000 packets");
    }
}
