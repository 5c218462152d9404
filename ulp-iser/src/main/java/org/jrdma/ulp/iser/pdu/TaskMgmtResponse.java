package org.jrdma.ulp.iser.pdu;

/** Task Management Function Response (RFC 7143 section 11.6). */
public record TaskMgmtResponse(TmfResponse response, int itt, TargetSn sn)
        implements IscsiHeader {

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_TMFUNC_RSP;
    }

    static TaskMgmtResponse decode(Bhs b) throws IscsiProtocolException {
        return new TaskMgmtResponse(TmfResponse.of(b.u8(2)), b.itt(), TargetSn.decode(b));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), false);
        b.flags(Bhs.FINAL);
        b.u8(2, response.value());
        b.itt(itt);
        sn.encode(b);
    }
}
