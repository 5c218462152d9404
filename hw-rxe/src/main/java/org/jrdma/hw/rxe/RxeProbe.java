package org.jrdma.hw.rxe;

/**
 * The requester's retry probe after a local ACK timeout ({@code RxeRequester.probeable}: not in rxe, which resends
 * the whole window at once): the oldest unacknowledged packet goes alone, with AckReq, and the rest wait for the
 * answer.
 */
enum RxeProbe {
    /** No probe: the requester sends as usual. */
    NONE,
    /** The next packet sent is the probe. */
    SEND,
    /** The probe is out: nothing more is sent until a response arrives (the completer) or the timer fires again. */
    WAIT
}
