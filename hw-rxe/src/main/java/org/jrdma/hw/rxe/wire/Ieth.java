package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Invalidate Extended Transport Header, 4 bytes: the R_Key to invalidate ({@code struct rxe_ieth}).
 */
public final class Ieth {
    /** {@code RXE_IETH_BYTES}. */
    public static final int BYTES = 4;

    private Ieth() {
    }

    public static int rkey(ByteBuf b, int off) {
        return b.getInt(off);
    }

    public static void encode(ByteBuf b, int off, int rkey) {
        b.setInt(off, rkey);
    }
}
