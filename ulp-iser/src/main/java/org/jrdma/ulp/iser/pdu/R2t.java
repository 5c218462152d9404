package org.jrdma.ulp.iser.pdu;

/**
 * Ready To Transfer (RFC 7143 section 11.8), iSCSI/TCP only: LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN, R2TSN,
 * buffer offset and desired data transfer length. (With iSER the target RDMA-READs instead.)
 */
public record R2t(long lun, int itt, int ttt, TargetSn sn, int r2tSn, int bufferOffset,
        int desiredLength) implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.R2T;
    }

    static R2t decode(Bhs b) {
        return new R2t(b.u64(8), b.itt(), b.u32(Bhs.W20), TargetSn.decode(b),
                b.u32(Bhs.W36), b.u32(Bhs.W40), b.u32(Bhs.W44));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL);
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
        b.u32(Bhs.W36, r2tSn);
        b.u32(Bhs.W40, bufferOffset);
        b.u32(Bhs.W44, desiredLength);
    }
}
