package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Datagram Extended Transport Header, 8 bytes: Q_Key (be32), then a reserved byte and the 24-bit source
 * QP ({@code struct rxe_deth}, {@code DETH_SQP_MASK 0x00ffffff}).
 */
public final class Deth {
    /** {@code RXE_DETH_BYTES}. */
    public static final int BYTES = 8;
    public static final int SQP_MASK = 0x00ffffff;

    private Deth() {
    }

    public static int qkey(ByteBuf b, int off) {
        return b.getInt(off);
    }

    /** Source QP number, 24 bits. */
    public static int sqp(ByteBuf b, int off) {
        return b.getInt(off + 4) & SQP_MASK;
    }

    /** The reserved byte before the source QP. */
    public static int resv8(ByteBuf b, int off) {
        return b.getUnsignedByte(off + 4);
    }

    /** Writes Q_Key and source QP; the reserved byte is written as 0, as rxe does. */
    public static void encode(ByteBuf b, int off, int qkey, int sqp) {
        b.setInt(off, qkey);
        b.setInt(off + 4, sqp & SQP_MASK);
    }
}
