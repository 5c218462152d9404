package org.jrdma.hw.rxe;

/** Where a send WQE is between the requester and the completer ({@code enum wqe_state} of rxe_verbs.h). */
enum RxeWqeState {
    /** Posted, nothing sent yet (also after a retry rewinds it). */
    POSTED,
    /** Some packets sent, not the last. */
    PROCESSING,
    /** RC: all packets sent, waiting for the ACK or response. */
    PENDING,
    /** Finished: completes with its status ({@link RxeSendWqe#status}). */
    DONE,
    /** Failed locally: completes with its error status. */
    ERROR
}
