package org.jrdma.ulp.iser.pdu;

/** The login stages of CSG and NSG (RFC 7143 section 11.12.3, Linux {@code ISCSI_*_STAGE}); value 2 is reserved. */
public enum LoginStage {
    SECURITY_NEGOTIATION(0), LOGIN_OPERATIONAL_NEGOTIATION(1), FULL_FEATURE_PHASE(3);

    private final int value;

    LoginStage(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    static LoginStage of(int value) throws IscsiProtocolException {
        for (LoginStage s : values()) {
            if (s.value == value) {
                return s;
            }
        }
        throw IscsiProtocolException.field("reserved login stage " + value);
    }
}
