package org.jrdma.hw.rxe;

/** The tunables of rxe_param.h this engine uses. */
final class RxeParams {
    /** {@code RXE_MAX_UNACKED_PSNS}: the requester's window of unacknowledged PSNs. */
    static final int MAX_UNACKED_PSNS = 128;
    /** {@code RXE_MAX_PKT_PER_ACK}: AckReq at least every this many packets. */
    static final int MAX_PKT_PER_ACK = 64;
    /** Responder resources kept for atomic replay. */
    static final int MAX_RD_ATOMIC_RESOURCES = 128;
    /** {@code RXE_MAX_HDR_LENGTH}: IP + UDP + rxe headers subtracted from the netdev MTU. */
    static final int MAX_HDR_LENGTH = 80;
    static final int PSN_MASK = 0xffffff;
    /** Room for the GRH at the start of a UD receive buffer. */
    static final int GRH_BYTES = 40;

    private RxeParams() {
    }

    /** {@code psn_compare}: negative if a is before b, in 24-bit serial arithmetic. */
    static int psnCompare(int a, int b) {
        return (a - b) << 8;
    }

    static int psnAdd(int psn, int n) {
        return (psn + n) & PSN_MASK;
    }
}
