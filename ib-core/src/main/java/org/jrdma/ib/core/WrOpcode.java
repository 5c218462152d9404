package org.jrdma.ib.core;

/** {@code enum ib_wr_opcode}: what a send work request does. */
public enum WrOpcode {
    RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, SEND_WITH_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP,
    ATOMIC_FETCH_AND_ADD, SEND_WITH_INV, LOCAL_INV, REG_MR, BIND_MW;

    /** The completion opcode a successful requester-side completion carries. */
    public WcOpcode wcOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case REG_MR -> WcOpcode.REG_MR;
            case BIND_MW -> WcOpcode.BIND_MW;
        };
    }

    /** Operations on local memory keys only; nothing goes on the wire. */
    public boolean isLocal() {
        return this == LOCAL_INV || this == REG_MR || this == BIND_MW;
    }
}
