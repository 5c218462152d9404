package org.jrdma.ib.core;

/** {@code enum ib_wc_opcode}. */
public enum WcOpcode {
    SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, BIND_MW, LOCAL_INV, REG_MR,
    /** A receive completed (SEND, SEND_WITH_IMM or SEND_WITH_INV arrived). */
    RECV,
    /** An RDMA WRITE with immediate consumed a receive. */
    RECV_RDMA_WITH_IMM;

    public boolean isRecv() {
        return this == RECV || this == RECV_RDMA_WITH_IMM;
    }
}
