package org.jrdma.ulp.iser.pdu;

/**
 * Login Response status class and detail (RFC 7143 section 11.13.5, Linux {@code ISCSI_STATUS_CLS_*} and
 * {@code ISCSI_LOGIN_STATUS_*}): the pairs a target sends. Class 0 success, 1 redirection, 2 initiator error,
 * 3 target error.
 */
public enum LoginStatus {
    SUCCESS(0x00, 0x00),
    TARGET_MOVED_TEMPORARILY(0x01, 0x01),
    TARGET_MOVED_PERMANENTLY(0x01, 0x02),
    INITIATOR_ERROR(0x02, 0x00),
    AUTHENTICATION_FAILURE(0x02, 0x01),
    AUTHORIZATION_FAILURE(0x02, 0x02),
    TARGET_NOT_FOUND(0x02, 0x03),
    TARGET_REMOVED(0x02, 0x04),
    UNSUPPORTED_VERSION(0x02, 0x05),
    TOO_MANY_CONNECTIONS(0x02, 0x06),
    MISSING_PARAMETER(0x02, 0x07),
    CANT_INCLUDE_IN_SESSION(0x02, 0x08),
    SESSION_TYPE_NOT_SUPPORTED(0x02, 0x09),
    SESSION_DOES_NOT_EXIST(0x02, 0x0a),
    INVALID_DURING_LOGIN(0x02, 0x0b),
    TARGET_ERROR(0x03, 0x00),
    SERVICE_UNAVAILABLE(0x03, 0x01),
    OUT_OF_RESOURCES(0x03, 0x02);

    private final int statusClass;
    private final int detail;

    LoginStatus(int statusClass, int detail) {
        this.statusClass = statusClass;
        this.detail = detail;
    }

    public int statusClass() {
        return statusClass;
    }

    public int detail() {
        return detail;
    }

    static LoginStatus of(int statusClass, int detail) throws IscsiProtocolException {
        for (LoginStatus s : values()) {
            if (s.statusClass == statusClass && s.detail == detail) {
                return s;
            }
        }
        throw IscsiProtocolException.field("unknown login status class " + statusClass + " detail " + detail);
    }
}
