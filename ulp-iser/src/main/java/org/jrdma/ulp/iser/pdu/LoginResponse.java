package org.jrdma.ulp.iser.pdu;

/**
 * Login Response (RFC 7143 section 11.13): T, C, CSG/NSG, Version-max/active, ISID, TSIH (the new session's
 * handle on the final response), ITT, StatSN, ExpCmdSN, MaxCmdSN, status class and detail. The negotiated keys
 * are the data segment.
 */
public record LoginResponse(LoginStages stages, int versionMax, int versionActive, long isid, int tsih, int itt,
        TargetSn sn, LoginStatus status) implements IscsiHeader {
    static final int STATUS_CLASS = 36;
    static final int STATUS_DETAIL = 37;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGIN_RSP;
    }

    static LoginResponse decode(Bhs b) throws IscsiProtocolException {
        return new LoginResponse(LoginStages.decode(b), b.u8(2), b.u8(3), b.u48(LoginRequest.ISID),
                b.u16(LoginRequest.TSIH), b.itt(), TargetSn.decode(b),
                LoginStatus.of(b.u8(STATUS_CLASS), b.u8(STATUS_DETAIL)));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        stages.encode(b);
        b.u8(2, versionMax);
        b.u8(3, versionActive);
        b.u48(LoginRequest.ISID, isid);
        b.u16(LoginRequest.TSIH, tsih);
        b.itt(itt);
        sn.encode(b);
        b.u8(STATUS_CLASS, status.statusClass());
        b.u8(STATUS_DETAIL, status.detail());
    }
}
