package org.jrdma.ulp.iser.pdu;

/**
 * Logout Response (RFC 7143 section 11.15): response (0 closed successfully, 1 CID not found, 2 recovery not
 * supported, 3 cleanup failed), ITT, StatSN, ExpCmdSN, MaxCmdSN, Time2Wait, Time2Retain.
 */
public record LogoutResponse(int response, int itt, TargetSn sn, int time2Wait,
        int time2Retain) implements IscsiHeader {
    static final int TIME2WAIT = 40;
    static final int TIME2RETAIN = 42;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGOUT_RSP;
    }

    static LogoutResponse decode(Bhs b) throws IscsiProtocolException {
        if (b.u8(2) > 3) {
            throw IscsiProtocolException.field("unknown logout response " + b.u8(2));
        }
        return new LogoutResponse(b.u8(2), b.itt(), TargetSn.decode(b),
                b.u16(TIME2WAIT), b.u16(TIME2RETAIN));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL);
        b.u8(2, response);
        b.itt(itt);
        sn.encode(b);
        b.u16(TIME2WAIT, time2Wait);
        b.u16(TIME2RETAIN, time2Retain);
    }
}
