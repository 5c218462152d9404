package org.jrdma.ulp.iser.pdu;

/**
 * SCSI Data-In (RFC 7143 section 11.7), iSCSI/TCP only (iSER moves read data by RDMA WRITE): F, A (ask for a
 * DataACK), O/U residual flags and S (status present, then the status byte and StatSN are valid), LUN, ITT, TTT,
 * StatSN, ExpCmdSN, MaxCmdSN, DataSN, buffer offset, residual count; the data segment.
 */
public record DataIn(boolean fin, boolean ack, boolean overflow, boolean underflow, boolean statusPresent,
        int status, long lun, int itt, int ttt, TargetSn sn, int dataSn, int bufferOffset,
        int residual) implements IscsiHeader {
    static final int ACK = 0x40;
    static final int STATUS = 0x01;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_DATA_IN;
    }

    static DataIn decode(Bhs b) {
        int f = b.flags();
        return new DataIn(b.isFinal(), (f & ACK) != 0, (f & ScsiResponse.OVERFLOW) != 0,
                (f & ScsiResponse.UNDERFLOW) != 0, (f & STATUS) != 0, b.u8(3), b.u64(8), b.itt(), b.u32(Bhs.W20),
                TargetSn.decode(b), b.u32(Bhs.W36), b.u32(Bhs.W40), b.u32(Bhs.W44));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags((fin ? Bhs.FINAL : 0) | (ack ? ACK : 0) | (overflow ? ScsiResponse.OVERFLOW : 0)
                | (underflow ? ScsiResponse.UNDERFLOW : 0) | (statusPresent ? STATUS : 0));
        b.u8(3, status);
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, ttt);
        sn.encode(b);
        b.u32(Bhs.W36, dataSn);
        b.u32(Bhs.W40, bufferOffset);
        b.u32(Bhs.W44, residual);
    }
}
