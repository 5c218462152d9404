package org.jrdma.ulp.iser.pdu;

/** The Reject PDU's reason codes (RFC 7143 section 11.17.1, Linux {@code ISCSI_REASON_*}). */
public enum RejectReason {
    DATA_DIGEST_ERROR(0x02),
    SNACK_REJECT(0x03),
    PROTOCOL_ERROR(0x04),
    CMD_NOT_SUPPORTED(0x05),
    IMM_CMD_REJECT(0x06),
    TASK_IN_PROGRESS(0x07),
    INVALID_DATA_ACK(0x08),
    INVALID_PDU_FIELD(0x09),
    OUT_OF_RESOURCES(0x0a),
    NEGOTIATION_RESET(0x0b),
    WAITING_FOR_LOGOUT(0x0c);

    private final int code;

    RejectReason(int code) {
        this.code = code;
    }

    /** The one-byte code on the wire. */
    public int code() {
        return code;
    }

    /** The reason with this code. */
    public static RejectReason of(int code) throws IscsiProtocolException {
        for (RejectReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        throw new IscsiProtocolException(PROTOCOL_ERROR, "unknown Reject reason 0x" + Integer.toHexString(code));
    }
}
