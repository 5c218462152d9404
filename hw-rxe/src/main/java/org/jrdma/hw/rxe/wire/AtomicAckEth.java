package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Atomic ACK Extended Transport Header, 8 bytes: the original remote data (be64) ({@code struct rxe_atmack}).
 */
public final class AtomicAckEth {
    /** {@code RXE_ATMACK_BYTES}. */
    public static final int BYTES = 8;

    private AtomicAckEth() {
    }

    public static long orig(ByteBuf b, int off) {
        return b.getLong(off);
    }

    public static void encode(ByteBuf b, int off, long orig) {
        b.setLong(off, orig);
    }
}
