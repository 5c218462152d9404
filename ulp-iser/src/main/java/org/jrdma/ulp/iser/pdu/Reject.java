package org.jrdma.ulp.iser.pdu;

/**
 * Reject (RFC 7143 section 11.17): reason, StatSN, ExpCmdSN, MaxCmdSN, DataSN/R2TSN; ITT is 0xffffffff and the
 * data segment carries the rejected PDU's BHS. {@link #of} builds one from a decode failure.
 */
public record Reject(RejectReason reason, TargetSn sn, int dataSn) implements IscsiHeader {
    /** The reserved tag in Reject, unsolicited NOP-In and Async Message. */
    public static final int RESERVED_TAG = 0xffffffff;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.REJECT;
    }

    @Override
    public int itt() {
        return RESERVED_TAG;
    }

    /** The Reject a target answers {@code e} with. */
    public static Reject of(IscsiProtocolException e, TargetSn sn) {
        return new Reject(e.reason(), sn, 0);
    }

    static Reject decode(Bhs b) throws IscsiProtocolException {
        return new Reject(RejectReason.of(b.u8(2)), TargetSn.decode(b), b.u32(Bhs.W36));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL);
        b.u8(2, reason.code());
        b.itt(RESERVED_TAG);
        sn.encode(b);
        b.u32(Bhs.W36, dataSn);
    }
}
