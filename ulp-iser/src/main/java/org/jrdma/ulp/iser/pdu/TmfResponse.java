package org.jrdma.ulp.iser.pdu;

/** Task Management Function Response codes (RFC 7143 section 11.6.1, Linux {@code ISCSI_TMF_RSP_*}). */
public enum TmfResponse {
    COMPLETE(0), NO_TASK(1), NO_LUN(2), TASK_ALLEGIANT(3), NO_FAILOVER(4), NOT_SUPPORTED(5), AUTH_FAILED(6),
    REJECTED(255);

    private final int value;

    TmfResponse(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    static TmfResponse of(int value) throws IscsiProtocolException {
        for (TmfResponse r : values()) {
            if (r.value == value) {
                return r;
            }
        }
        throw IscsiProtocolException.field("unknown task management response " + value);
    }
}
