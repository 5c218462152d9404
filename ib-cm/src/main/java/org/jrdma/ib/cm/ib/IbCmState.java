package org.jrdma.ib.cm.ib;

/** {@code enum ib_cm_state} of {@code cm.c}. */
public enum IbCmState {
    IDLE, LISTEN,
    /** active: REQ sent, waiting for REP / REJ / MRA */
    REQ_SENT,
    /** passive: REQ received, REQ_RECEIVED delivered, waiting for the consumer's REP / REJ */
    REQ_RCVD,
    /** passive: the consumer asked to MRA the REQ (with {@link IbCm#MRA_FLAG_DELAY}: sent when a duplicate REQ comes) */
    MRA_REQ_SENT,
    /** active: the peer MRAed our REQ; waiting longer */
    MRA_REQ_RCVD,
    /** passive: REP sent, waiting for RTU */
    REP_SENT,
    /** active: REP received, REP_RECEIVED delivered, waiting for the consumer's RTU / REJ */
    REP_RCVD,
    MRA_REP_SENT,
    /** passive: the peer MRAed our REP */
    MRA_REP_RCVD,
    ESTABLISHED,
    /** DREQ sent, waiting for DREP */
    DREQ_SENT,
    /** DREQ received, DREQ_RECEIVED delivered, waiting for the consumer's DREP */
    DREQ_RCVD,
    /** disconnected; duplicate DREQs are answered with DREP until TIMEWAIT_EXIT */
    TIMEWAIT,
    SIDR_REQ_SENT,
    SIDR_REQ_RCVD
}
