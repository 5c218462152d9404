package org.jrdma.ulp.iser.pdu;

/** Text Response (RFC 7143 section 11.11): F, C, LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN; keys as data. */
public record TextResponse(boolean fin, boolean cont, long lun, int itt, int ttt, TargetSn sn) implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TEXT_RSP;
    }

    static TextResponse decode(Bhs b) {
        return new TextResponse(b.isFinal(), (b.flags() & TextRequest.CONTINUE) != 0, b.u64(8), b.itt(),
                b.u32(Bhs.W20), TargetSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags((fin ? Bhs.FINAL : 0) | (cont ? TextRequest.CONTINUE : 0));
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
    }
}
