package org.jrdma.ulp.iser.pdu;

/** NOP-Out (RFC 7143 section 11.18): a ping, or the answer to a NOP-In with a TTT; TTT 0xffffffff = not an answer. */
public record NopOut(boolean immediate, long lun, int itt, int ttt, InitiatorSn sn) implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.NOOP_OUT;
    }

    static NopOut decode(Bhs b) {
        return new NopOut(b.immediate(), b.u64(8), b.itt(), b.u32(Bhs.W20), InitiatorSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), immediate);
        b.flags(Bhs.FINAL);
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
    }
}
