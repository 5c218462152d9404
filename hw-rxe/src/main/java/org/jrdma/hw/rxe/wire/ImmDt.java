package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Immediate data, 4 bytes ({@code struct rxe_immdt}). verbs carries {@code imm_data} as a {@code __be32}:
 * the value here is the 4 wire bytes read big-endian, i.e. exactly what {@code ib_wc.ex.imm_data} holds
 * in network order. (pyverbs on x86 passing 0x11223344 puts {@code 44 33 22 11} on the wire; this reads
 * 0x44332211.)
 */
public final class ImmDt {
    /** {@code RXE_IMMDT_BYTES}. */
    public static final int BYTES = 4;

    private ImmDt() {
    }

    public static int imm(ByteBuf b, int off) {
        return b.getInt(off);
    }

    public static void encode(ByteBuf b, int off, int imm) {
        b.setInt(off, imm);
    }
}
