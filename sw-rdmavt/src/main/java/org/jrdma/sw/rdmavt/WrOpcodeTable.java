package org.jrdma.sw.rdmavt;

import static org.jrdma.ib.core.QpType.GSI;
import static org.jrdma.ib.core.QpType.RC;
import static org.jrdma.ib.core.QpType.SMI;
import static org.jrdma.ib.core.QpType.UC;
import static org.jrdma.ib.core.QpType.UD;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.WrOpcode;

/**
 * Which work request opcodes each QP type accepts (rxe's {@code rxe_wr_opcode_info}, narrowed to
 * what the IBTA packet opcodes allow: SEND_WITH_INV has RC opcodes only, UD and the special QPs
 * only send).
 */
public final class WrOpcodeTable {
    private static final Map<WrOpcode, Set<QpType>> VALID = new EnumMap<>(WrOpcode.class);

    static {
        VALID.put(WrOpcode.SEND, EnumSet.of(RC, UC, UD, SMI, GSI));
        VALID.put(WrOpcode.SEND_WITH_IMM, EnumSet.of(RC, UC, UD, SMI, GSI));
        VALID.put(WrOpcode.RDMA_WRITE, EnumSet.of(RC, UC));
        VALID.put(WrOpcode.RDMA_WRITE_WITH_IMM, EnumSet.of(RC, UC));
        VALID.put(WrOpcode.RDMA_READ, EnumSet.of(RC));
        VALID.put(WrOpcode.ATOMIC_CMP_AND_SWP, EnumSet.of(RC));
        VALID.put(WrOpcode.ATOMIC_FETCH_AND_ADD, EnumSet.of(RC));
        VALID.put(WrOpcode.SEND_WITH_INV, EnumSet.of(RC));
        VALID.put(WrOpcode.LOCAL_INV, EnumSet.of(RC, UC));
        VALID.put(WrOpcode.REG_MR, EnumSet.of(RC, UC));
        VALID.put(WrOpcode.BIND_MW, EnumSet.of(RC, UC));
    }

    private WrOpcodeTable() {
    }

    public static boolean valid(WrOpcode op, QpType type) {
        return VALID.get(op).contains(type);
    }

    public static boolean isAtomic(WrOpcode op) {
        return op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }

    /** Operations that consume a receive WQE at the responder. */
    public static boolean consumesRecv(WrOpcode op) {
        return op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.SEND_WITH_INV
                || op == WrOpcode.RDMA_WRITE_WITH_IMM;
    }

    /** Operations whose requester waits for data back (they are what FENCE waits for). */
    public static boolean isReadOrAtomic(WrOpcode op) {
        return op == WrOpcode.RDMA_READ || isAtomic(op);
    }
}
