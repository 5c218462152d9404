package org.jrdma.sw.rdmavt;

import static org.jrdma.ib.core.QpType.GSI;
import static org.jrdma.ib.core.QpType.RC;
import static org.jrdma.ib.core.QpType.SMI;
import static org.jrdma.ib.core.QpType.UC;
import static org.jrdma.ib.core.QpType.UD;

import java.util.EnumSet;
import java.util.Set;

import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WrOpcode;

/**
 * The work request opcodes as rxe's {@code rxe_wr_opcode_info} describes them: per opcode, the QP types that accept
 * it (narrowed to what the IBTA packet opcodes allow: SEND_WITH_INV has RC opcodes only, UD and the special QPs only
 * send) and its mask bits ({@code WR_*_MASK} of rxe_opcode.h, and jrdma's {@link #WR_RWR_MASK}). The predicates
 * read the bits; nothing is hand-coded per opcode.
 */
public final class WrOpcodeTable {
    /** {@code WR_INLINE_MASK}: may carry inline data. */
    public static final int WR_INLINE_MASK = 1 << 0;
    /** {@code WR_ATOMIC_MASK}: an atomic (compare and swap, fetch and add). */
    public static final int WR_ATOMIC_MASK = 1 << 1;
    /** {@code WR_SEND_MASK}: a SEND of any kind. */
    public static final int WR_SEND_MASK = 1 << 2;
    /** {@code WR_READ_MASK}: an RDMA READ. */
    public static final int WR_READ_MASK = 1 << 3;
    /** {@code WR_WRITE_MASK}: an RDMA WRITE of any kind. */
    public static final int WR_WRITE_MASK = 1 << 4;
    /** {@code WR_LOCAL_OP_MASK}: runs at the requester alone (LOCAL_INV, REG_MR, BIND_MW). */
    public static final int WR_LOCAL_OP_MASK = 1 << 5;
    /**
     * Consumes a receive WQE at the responder (jrdma's bit: rxe reads it from the packet opcode, {@code
     * RXE_RWR_MASK}): the SENDs and RDMA WRITE with immediate.
     */
    public static final int WR_RWR_MASK = 1 << 6;
    /** {@code WR_READ_OR_WRITE_MASK}. */
    public static final int WR_READ_OR_WRITE_MASK = WR_READ_MASK | WR_WRITE_MASK;
    /** The requester waits for data back: what FENCE waits for, and what counts against rd_atomic. */
    public static final int WR_READ_OR_ATOMIC_MASK = WR_READ_MASK | WR_ATOMIC_MASK;

    /** One opcode's row. */
    private record Row(Set<QpType> types, int mask) {
    }

    /** By opcode ordinal: read per packet, so an array (no lookup, no boxing). */
    private static final Row[] ROWS = new Row[WrOpcode.values().length];

    static {
        row(WrOpcode.SEND, WR_INLINE_MASK | WR_SEND_MASK | WR_RWR_MASK, RC, UC, UD, SMI, GSI);
        row(WrOpcode.SEND_WITH_IMM, WR_INLINE_MASK | WR_SEND_MASK | WR_RWR_MASK, RC, UC, UD, SMI, GSI);
        row(WrOpcode.RDMA_WRITE, WR_INLINE_MASK | WR_WRITE_MASK, RC, UC);
        row(WrOpcode.RDMA_WRITE_WITH_IMM, WR_INLINE_MASK | WR_WRITE_MASK | WR_RWR_MASK, RC, UC);
        row(WrOpcode.RDMA_READ, WR_READ_MASK, RC);
        row(WrOpcode.ATOMIC_CMP_AND_SWP, WR_ATOMIC_MASK, RC);
        row(WrOpcode.ATOMIC_FETCH_AND_ADD, WR_ATOMIC_MASK, RC);
        row(WrOpcode.SEND_WITH_INV, WR_INLINE_MASK | WR_SEND_MASK | WR_RWR_MASK, RC);
        row(WrOpcode.LOCAL_INV, WR_LOCAL_OP_MASK, RC, UC);
        row(WrOpcode.REG_MR, WR_LOCAL_OP_MASK, RC, UC);
        row(WrOpcode.BIND_MW, WR_LOCAL_OP_MASK, RC, UC);
    }

    private static void row(WrOpcode op, int mask, QpType first, QpType... rest) {
        ROWS[op.ordinal()] = new Row(EnumSet.of(first, rest), mask);
    }

    private WrOpcodeTable() {
    }

    public static boolean valid(WrOpcode op, QpType type) {
        return ROWS[op.ordinal()].types().contains(type);
    }

    /** The opcode's {@code WR_*_MASK} bits. */
    public static int mask(WrOpcode op) {
        return ROWS[op.ordinal()].mask();
    }

    public static boolean isAtomic(WrOpcode op) {
        return (mask(op) & WR_ATOMIC_MASK) != 0;
    }

    /** Operations that consume a receive WQE at the responder. */
    public static boolean consumesRecv(WrOpcode op) {
        return (mask(op) & WR_RWR_MASK) != 0;
    }

    /** Operations whose requester waits for data back (they are what FENCE waits for). */
    public static boolean isReadOrAtomic(WrOpcode op) {
        return (mask(op) & WR_READ_OR_ATOMIC_MASK) != 0;
    }
}
