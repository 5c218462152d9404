package org.jrdma.ib.cm.ib;

/** {@code enum ib_cm_rej_reason} of Linux 6.1 {@code ib_cm.h}, with the codes of IBTA table 109. */
public enum IbCmRejReason {
    NO_QP(1),
    NO_EEC(2),
    NO_RESOURCES(3),
    TIMEOUT(4),
    UNSUPPORTED(5),
    INVALID_COMM_ID(6),
    INVALID_COMM_INSTANCE(7),
    INVALID_SERVICE_ID(8),
    INVALID_TRANSPORT_TYPE(9),
    STALE_CONN(10),
    RDC_NOT_EXIST(11),
    INVALID_GID(12),
    INVALID_LID(13),
    INVALID_SL(14),
    INVALID_TRAFFIC_CLASS(15),
    INVALID_HOP_LIMIT(16),
    INVALID_PACKET_RATE(17),
    INVALID_ALT_GID(18),
    INVALID_ALT_LID(19),
    INVALID_ALT_SL(20),
    INVALID_ALT_TRAFFIC_CLASS(21),
    INVALID_ALT_HOP_LIMIT(22),
    INVALID_ALT_PACKET_RATE(23),
    PORT_CM_REDIRECT(24),
    PORT_REDIRECT(25),
    INVALID_MTU(26),
    INSUFFICIENT_RESP_RESOURCES(27),
    CONSUMER_DEFINED(28),
    INVALID_RNR_RETRY(29),
    DUPLICATE_LOCAL_COMM_ID(30),
    INVALID_CLASS_VERSION(31),
    INVALID_FLOW_LABEL(32),
    INVALID_ALT_FLOW_LABEL(33),
    VENDOR_OPTION_NOT_SUPPORTED(35);

    private static final IbCmRejReason[] BY_CODE = new IbCmRejReason[36];

    static {
        for (IbCmRejReason r : values()) {
            BY_CODE[r.code] = r;
        }
    }

    private final int code;

    IbCmRejReason(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The reason of {@code code}; IllegalArgumentException for a code Linux does not define (0, 34, 36...). */
    public static IbCmRejReason fromCode(int code) {
        IbCmRejReason r = find(code);
        if (r == null) {
            throw new IllegalArgumentException("unknown CM reject reason " + code);
        }
        return r;
    }

    /** The reason of {@code code}, or null when Linux defines none. */
    public static IbCmRejReason find(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
