package org.jrdma.ulp.iser.pdu;

/** The Logout Request's reason code (RFC 7143 section 11.14.1, Linux {@code ISCSI_LOGOUT_REASON_*}). */
public enum LogoutReason {
    CLOSE_SESSION, CLOSE_CONNECTION, RECOVERY;

    public int value() {
        return ordinal();
    }

    static LogoutReason of(int value) throws IscsiProtocolException {
        if (value >= values().length) {
            throw IscsiProtocolException.field("unknown logout reason " + value);
        }
        return values()[value];
    }
}
