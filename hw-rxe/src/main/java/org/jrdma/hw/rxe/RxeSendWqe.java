package org.jrdma.hw.rxe;

import org.jrdma.ib.core.WcStatus;
import org.jrdma.sw.rdmavt.SendWqe;

/**
 * A send WQE with the requester's and completer's state of it, as rxe keeps it in {@code struct
 * rxe_send_wqe}. The state is cleared when the slot takes a new WR; after that only the engine touches
 * it, with the QP's {@code exec} held.
 */
final class RxeSendWqe extends SendWqe {
    private static final WcStatus[] STATUS = WcStatus.values();

    RxeWqeState state = RxeWqeState.POSTED;
    /** Its first packet went out (first and last PSN are set). */
    boolean started;
    int firstPsn;
    int lastPsn;
    /** Bytes of the message sent so far (requester); a message is at most 2^31 - 1 bytes. */
    int offset;
    /** The ordinal of the WcStatus a DONE or ERROR WQE completes with. */
    private byte status;

    RxeSendWqe(int maxSge, int maxInline) {
        super(maxSge, maxInline);
    }

    @Override
    protected void clearEngineState() {
        reset();
    }

    void reset() {
        state = RxeWqeState.POSTED;
        firstPsn = lastPsn = 0;
        started = false;
        offset = 0;
        status = (byte) WcStatus.SUCCESS.ordinal();
    }

    WcStatus status() {
        return STATUS[status];
    }

    void status(WcStatus s) {
        status = (byte) s.ordinal();
    }
}
