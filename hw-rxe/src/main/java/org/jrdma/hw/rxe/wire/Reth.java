package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * RDMA Extended Transport Header, 16 bytes: virtual address (be64), R_Key (be32), DMA length (be32)
 * ({@code struct rxe_reth}). Absolute offsets, no allocation.
 */
public final class Reth {
    /** {@code RXE_RETH_BYTES}. */
    public static final int BYTES = 16;

    private Reth() {
    }

    public static long va(ByteBuf b, int off) {
        return b.getLong(off);
    }

    public static int rkey(ByteBuf b, int off) {
        return b.getInt(off + 8);
    }

    /** DMA length: an unsigned 32-bit value (use {@link Integer#toUnsignedLong(int)}). */
    public static int len(ByteBuf b, int off) {
        return b.getInt(off + 12);
    }

    public static void encode(ByteBuf b, int off, long va, int rkey, int len) {
        b.setLong(off, va);
        b.setInt(off + 8, rkey);
        b.setInt(off + 12, len);
    }

    public static void setVa(ByteBuf b, int off, long va) {
        b.setLong(off, va);
    }

    public static void setRkey(ByteBuf b, int off, int rkey) {
        b.setInt(off + 8, rkey);
    }

    public static void setLen(ByteBuf b, int off, int len) {
        b.setInt(off + 12, len);
    }
}
