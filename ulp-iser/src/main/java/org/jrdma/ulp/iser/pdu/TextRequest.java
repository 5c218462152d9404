package org.jrdma.ulp.iser.pdu;

/**
 * Text Request (RFC 7143 section 11.10): F, C (the keys continue in the next PDU), LUN, ITT, TTT (0xffffffff to
 * start, else the target's to continue), CmdSN, ExpStatSN; keys in the data segment ({@code SendTargets=All}).
 */
public record TextRequest(boolean immediate, boolean fin, boolean cont, long lun, int itt, int ttt,
        InitiatorSn sn) implements IscsiHeader {
    static final int CONTINUE = 0x40;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TEXT;
    }

    static TextRequest decode(Bhs b) {
        return new TextRequest(b.immediate(), b.isFinal(), (b.flags() & CONTINUE) != 0, b.u64(8), b.itt(),
                b.u32(Bhs.W20), InitiatorSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), immediate);
        b.flags((fin ? Bhs.FINAL : 0) | (cont ? CONTINUE : 0));
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
    }
}
