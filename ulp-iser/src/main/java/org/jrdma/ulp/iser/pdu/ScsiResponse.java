package org.jrdma.ulp.iser.pdu;

/**
 * SCSI Response (RFC 7143 section 11.4): the bidirectional o/u and the O/U residual flags, iSCSI response
 * (0 = command completed at target, 1 = target failure), SAM status (0x00 GOOD, 0x02 CHECK CONDITION, ...),
 * SNACK tag, sequence numbers, ExpDataSN and the residual counts. Sense data, if any, is the data segment
 * (2-byte SenseLength, then the sense bytes).
 */
public record ScsiResponse(boolean bidiOverflow, boolean bidiUnderflow, boolean overflow, boolean underflow,
        int response, int status, int itt, int snackTag, TargetSn sn, int expDataSn,
        int bidiReadResidual, int residual) implements IscsiHeader {
    static final int BIDI_OVERFLOW = 0x10;
    static final int BIDI_UNDERFLOW = 0x08;
    static final int OVERFLOW = 0x04;
    static final int UNDERFLOW = 0x02;
    /** SAM status GOOD and CHECK CONDITION. */
    public static final int GOOD = 0x00;
    public static final int CHECK_CONDITION = 0x02;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_CMD_RSP;
    }

    static ScsiResponse decode(Bhs b) {
        int f = b.flags();
        return new ScsiResponse((f & BIDI_OVERFLOW) != 0, (f & BIDI_UNDERFLOW) != 0, (f & OVERFLOW) != 0,
                (f & UNDERFLOW) != 0, b.u8(2), b.u8(3), b.itt(), b.u32(Bhs.W20), TargetSn.decode(b),
                b.u32(Bhs.W36), b.u32(Bhs.W40), b.u32(Bhs.W44));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL | (bidiOverflow ? BIDI_OVERFLOW : 0) | (bidiUnderflow ? BIDI_UNDERFLOW : 0)
                | (overflow ? OVERFLOW : 0) | (underflow ? UNDERFLOW : 0));
        b.u8(2, response);
        b.u8(3, status);
        b.itt(itt);
        b.u32(Bhs.W20, snackTag);
        sn.encode(b);
        b.u32(Bhs.W36, expDataSn);
        b.u32(Bhs.W40, bidiReadResidual);
        b.u32(Bhs.W44, residual);
    }
}
