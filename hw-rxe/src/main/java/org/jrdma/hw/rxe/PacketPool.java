package org.jrdma.hw.rxe;

import io.netty.buffer.PooledByteBufAllocator;

/**
 * Where packet buffers come from: the packets the engines build (heap) and the buffers the Netty wire
 * reads datagrams into (direct). A Netty pool gives every thread that allocates an arena of its own,
 * and every arena keeps at least one chunk once used; with Netty's default chunks of 4 MiB, a device
 * that a posting thread, the engine and the event loop had sent through held 12 MiB of heap and 4 MiB
 * of direct memory in mostly empty chunks, for packets of at most 9 KiB and receive buffers of 74 KiB.
 * This pool has Netty's defaults but chunks of {@value #CHUNK_KIB} KiB.
 */
public final class PacketPool {
    static final int CHUNK_KIB = 256;

    /** The allocator of every rxe device and Netty wire in this JVM. */
    public static final PooledByteBufAllocator ALLOC = new PooledByteBufAllocator(
            PooledByteBufAllocator.defaultPreferDirect(), PooledByteBufAllocator.defaultNumHeapArena(),
            PooledByteBufAllocator.defaultNumDirectArena(), PooledByteBufAllocator.defaultPageSize(),
            Integer.numberOfTrailingZeros((CHUNK_KIB << 10) / PooledByteBufAllocator.defaultPageSize()),
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
            PooledByteBufAllocator.defaultUseCacheForAllThreads());

    private PacketPool() {
    }
}
