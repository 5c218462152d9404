package org.jrdma.ulp.iser.pdu;

/**
 * Login Request (RFC 7143 section 11.12), always immediate: T (transit to NSG), C (text continues), CSG/NSG,
 * Version-max/min (0), the 6-byte ISID and TSIH (0 for a new session), ITT, CID, CmdSN, ExpStatSN. The login
 * keys are the data segment ({@link TextKeys}).
 */
public record LoginRequest(LoginStages stages, int versionMax, int versionMin, long isid, int tsih, int itt, int cid,
        InitiatorSn sn) implements IscsiHeader {
    static final int ISID = 8;
    static final int TSIH = 14;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGIN;
    }

    static LoginRequest decode(Bhs b) throws IscsiProtocolException {
        if (!b.immediate()) {
            throw IscsiProtocolException.field("Login Request without the I bit");
        }
        return new LoginRequest(LoginStages.decode(b), b.u8(2), b.u8(3), b.u48(ISID), b.u16(TSIH), b.itt(),
                b.u16(Bhs.W20), InitiatorSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), true);
        stages.encode(b);
        b.u8(2, versionMax);
        b.u8(3, versionMin);
        b.u48(ISID, isid);
        b.u16(TSIH, tsih);
        b.itt(itt);
        b.u16(Bhs.W20, cid);
        sn.encode(b);
    }
}
