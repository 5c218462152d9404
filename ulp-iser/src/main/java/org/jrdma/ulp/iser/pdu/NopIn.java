package org.jrdma.ulp.iser.pdu;

/** NOP-In (RFC 7143 section 11.19): the answer to a NOP-Out (its ITT), or the target's own ping (ITT 0xffffffff). */
public record NopIn(long lun, int itt, int ttt, TargetSn sn) implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.NOOP_IN;
    }

    static NopIn decode(Bhs b) {
        return new NopIn(b.u64(8), b.itt(), b.u32(Bhs.W20), TargetSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL);
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
    }
}
