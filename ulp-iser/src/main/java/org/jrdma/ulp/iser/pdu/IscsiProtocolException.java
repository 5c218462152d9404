package org.jrdma.ulp.iser.pdu;

/**
 * A PDU, AHS, data segment or text key that does not decode. Carries the {@link RejectReason} a target answers
 * with (RFC 7143 section 11.17.1): a malformed header field is {@code INVALID_PDU_FIELD}, an unknown opcode
 * {@code CMD_NOT_SUPPORTED}, a framing error {@code PROTOCOL_ERROR}.
 */
public final class IscsiProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    private final RejectReason reason;

    public IscsiProtocolException(RejectReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** What a target puts in the Reject PDU it answers with. */
    public RejectReason reason() {
        return reason;
    }

    static IscsiProtocolException field(String message) {
        return new IscsiProtocolException(RejectReason.INVALID_PDU_FIELD, message);
    }

    static IscsiProtocolException framing(String message) {
        return new IscsiProtocolException(RejectReason.PROTOCOL_ERROR, message);
    }
}
