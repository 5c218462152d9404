package org.jrdma.ib.core;

/** {@code enum ib_event_type}, with the text of {@code ib_event_msg()}. */
public enum EventType {
    CQ_ERR("CQ error", Scope.CQ),
    QP_FATAL("QP fatal error", Scope.QP),
    QP_REQ_ERR("QP request error", Scope.QP),
    QP_ACCESS_ERR("QP access error", Scope.QP),
    COMM_EST("communication established", Scope.QP),
    SQ_DRAINED("send queue drained", Scope.QP),
    PATH_MIG("path migration successful", Scope.QP),
    PATH_MIG_ERR("path migration error", Scope.QP),
    DEVICE_FATAL("device fatal error", Scope.DEVICE),
    PORT_ACTIVE("port active", Scope.PORT),
    PORT_ERR("port error", Scope.PORT),
    LID_CHANGE("LID change", Scope.PORT),
    PKEY_CHANGE("P_key change", Scope.PORT),
    SM_CHANGE("SM change", Scope.PORT),
    SRQ_ERR("SRQ error", Scope.SRQ),
    SRQ_LIMIT_REACHED("SRQ limit reached", Scope.SRQ),
    QP_LAST_WQE_REACHED("last WQE reached", Scope.QP),
    CLIENT_REREGISTER("client reregister", Scope.PORT),
    GID_CHANGE("GID changed", Scope.PORT);

    /** What an event is about, so ib-core knows whose handler gets it. */
    public enum Scope {
        DEVICE, PORT, QP, CQ, SRQ
    }

    private final String message;
    private final Scope scope;

    EventType(String message, Scope scope) {
        this.message = message;
        this.scope = scope;
    }

    public String message() {
        return message;
    }

    public Scope scope() {
        return scope;
    }
}
