package org.jrdma.ulp.iser.pdu;

/**
 * SCSI Data-Out (RFC 7143 section 11.7), iSCSI/TCP only (iSER moves write data by RDMA READ): F, LUN, ITT, TTT
 * (of the R2T, or 0xffffffff for unsolicited data), ExpStatSN, DataSN, buffer offset; the data segment.
 */
public record DataOut(boolean fin, long lun, int itt, int ttt, int expStatSn, int dataSn, int bufferOffset)
        implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_DATA_OUT;
    }

    static DataOut decode(Bhs b) {
        return new DataOut(b.isFinal(), b.u64(8), b.itt(), b.u32(Bhs.W20), b.u32(Bhs.W28), b.u32(Bhs.W36),
                b.u32(Bhs.W40));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(fin ? Bhs.FINAL : 0);
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        b.u32(Bhs.W28, expStatSn);
        b.u32(Bhs.W36, dataSn);
        b.u32(Bhs.W40, bufferOffset);
    }
}
