package org.jrdma.ulp.iser.pdu;

/** Logout Request (RFC 7143 section 11.14): reason, ITT, CID (for connection logouts), CmdSN, ExpStatSN. */
public record LogoutRequest(boolean immediate, LogoutReason reason, int itt, int cid, InitiatorSn sn)
        implements IscsiHeader {
    static final int REASON_MASK = 0x7f;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGOUT;
    }

    static LogoutRequest decode(Bhs b) throws IscsiProtocolException {
        return new LogoutRequest(b.immediate(), LogoutReason.of(b.flags() & REASON_MASK), b.itt(), b.u16(Bhs.W20),
                InitiatorSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), immediate);
        b.flags(Bhs.FINAL | reason.value());
        b.itt(itt);
        b.u16(Bhs.W20, cid);
        sn.encode(b);
    }
}
