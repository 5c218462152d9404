package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Atomic Extended Transport Header, 28 bytes, packed ({@code struct rxe_atmeth __packed}): virtual
 * address (be64 at 0), R_Key (be32 at 8), swap or add data (be64 at 12), compare data (be64 at 20).
 * Absolute offsets, no allocation.
 */
public final class AtomicEth {
    /** {@code RXE_ATMETH_BYTES}. */
    public static final int BYTES = 28;

    private AtomicEth() {
    }

    public static long va(ByteBuf b, int off) {
        return b.getLong(off);
    }

    public static int rkey(ByteBuf b, int off) {
        return b.getInt(off + 8);
    }

    /** Swap data (COMPARE_SWAP) or add data (FETCH_ADD). */
    public static long swapAdd(ByteBuf b, int off) {
        return b.getLong(off + 12);
    }

    /** Compare data (COMPARE_SWAP; FETCH_ADD carries it too, rxe sends 0). */
    public static long comp(ByteBuf b, int off) {
        return b.getLong(off + 20);
    }

    public static void encode(ByteBuf b, int off, long va, int rkey, long swapAdd, long comp) {
        b.setLong(off, va);
        b.setInt(off + 8, rkey);
        b.setLong(off + 12, swapAdd);
        b.setLong(off + 20, comp);
    }
}
