package org.jrdma.hw.rxe;

import java.nio.ByteBuffer;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;

/**
 * Where packet buffers come from.
 *
 * <p>The packets the engines build and the small packets a receive thread copies out ({@link #buffer}) are slots
 * of a few fixed sizes, carved out of direct chunks once and reused for the life of the JVM: taking and returning
 * one allocates nothing, on any thread. Netty's pool allocated per packet on the threads that post (they are not
 * Netty threads, and Netty 4.2 recycles its buffer objects only for those), and its leak detector samples one
 * allocation in 128 with a stack trace; the WRITE path's garbage was mostly that. Instead of the leak detector,
 * {@link #outstanding()} counts the slots not returned (the tests check it is 0 once the devices are closed).
 *
 * <p>The receive buffers of the Netty wire (GRO runs of up to 64 KiB, sliced into packets) still come from a Netty
 * pool ({@link #ALLOC}): their slice objects are recycled on the receive threads, which are Netty threads. Every
 * arena of a Netty pool keeps a chunk once used; with Netty's default chunks of 4 MiB a device held 12 MiB of heap
 * and 4 MiB of direct memory in mostly empty chunks. This pool has Netty's defaults but chunks of
 * {@value #CHUNK_KIB} KiB.
 */
public final class PacketPool {
    static final int CHUNK_KIB = 256;

    /** The allocator of the Netty wire's receive buffers, and of packets larger than the largest slot. */
    public static final PooledByteBufAllocator ALLOC = new PooledByteBufAllocator(
            PooledByteBufAllocator.defaultPreferDirect(), PooledByteBufAllocator.defaultNumHeapArena(),
            PooledByteBufAllocator.defaultNumDirectArena(), PooledByteBufAllocator.defaultPageSize(),
            Integer.numberOfTrailingZeros((CHUNK_KIB << 10) / PooledByteBufAllocator.defaultPageSize()),
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
            PooledByteBufAllocator.defaultUseCacheForAllThreads());

    /**
     * Slot sizes: ACKs, READ requests, small messages and the heads of gathered packets; a full packet at IB MTU
     * 1024; one at IB MTU 4096 (the largest IB MTU). The 128 bytes over the MTU cover the largest transport
     * headers (BTH, RETH, ImmDt, or DETH and the atomic ETH), pad and ICRC.
     */
    static final int[] SLOT_SIZES = {256, 1024 + 128, 4096 + 128};

    private static final Slots[] SLOTS = new Slots[SLOT_SIZES.length];

    static {
        for (int i = 0; i < SLOTS.length; i++) {
            SLOTS[i] = new Slots(SLOT_SIZES[i]);
        }
    }

    private PacketPool() {
    }

    /**
     * A direct buffer for a packet of up to {@code len} bytes: readerIndex and writerIndex 0, contents undefined,
     * capacity at least {@code len} (the slot's size: it cannot grow). Released as any {@link ByteBuf}; the last
     * release returns it here.
     */
    public static ByteBuf buffer(int len) {
        for (Slots s : SLOTS) {
            if (len <= s.size) {
                return s.take();
            }
        }
        return ALLOC.directBuffer(len, len); // larger than any RoCE packet: a datagram of another kind
    }

    /** Slots taken and not returned yet, of every size. */
    public static long outstanding() {
        long n = 0;
        for (Slots s : SLOTS) {
            n += s.outstanding();
        }
        return n;
    }

    /** Slots made so far (taken or free), of every size. */
    public static long slots() {
        long n = 0;
        for (Slots s : SLOTS) {
            n += s.made();
        }
        return n;
    }

    /**
     * The slots of one size: a stack of free ones under a lock (no allocation, also when contended), grown by a
     * chunk of {@value #CHUNK_KIB} KiB when empty. Packets are taken and returned on different threads (built by
     * a posting thread, released by the one that sent them or the peer's receive thread), so there is no
     * per-thread cache to refill.
     */
    private static final class Slots {
        final int size;
        private Packet[] free = new Packet[64];
        private int top;
        private long made;

        Slots(int size) {
            this.size = size;
        }

        synchronized Packet take() {
            if (top == 0) {
                grow();
            }
            Packet p = free[--top];
            free[top] = null;
            p.reuse();
            return p;
        }

        synchronized void give(Packet p) {
            if (top == free.length) {
                free = Arrays.copyOf(free, top * 2);
            }
            free[top++] = p;
        }

        synchronized long outstanding() {
            return made - top;
        }

        synchronized long made() {
            return made;
        }

        private void grow() {
            ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK_KIB << 10);
            int n = chunk.capacity() / size;
            if (free.length < top + n) {
                free = Arrays.copyOf(free, Math.max(free.length * 2, top + n));
            }
            for (int i = n - 1; i >= 0; i--) {
                free[top++] = new Packet(this, chunk.slice(i * size, size));
            }
            made += n;
        }
    }

    /** A slot: a direct buffer over its part of a chunk that goes back to its {@link Slots} on the last release. */
    private static final class Packet extends UnpooledUnsafeDirectByteBuf {
        private final Slots home;

        Packet(Slots home, ByteBuffer slot) {
            super(ALLOC, slot, slot.capacity());
            this.home = home;
        }

        /** Count 1 again: while free it stays at 0, so a release too many fails as on any released buffer. */
        void reuse() {
            resetRefCnt();
            clear();
        }

        @Override
        protected void deallocate() {
            home.give(this);
        }
    }
}
