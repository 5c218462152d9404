package org.jrdma.ib.core;

/** {@code enum ib_qp_state}, in the kernel's order. */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR
}
