package org.jrdma.ulp.iser.pdu;

/**
 * Task Management Function Request (RFC 7143 section 11.5): the function, LUN, ITT, Referenced Task Tag (ABORT
 * TASK), CmdSN, ExpStatSN, RefCmdSN and ExpDataSN.
 */
public record TaskMgmtRequest(boolean immediate, TmfFunction function, long lun, int itt, int referencedTaskTag,
        InitiatorSn sn, int refCmdSn, int expDataSn) implements IscsiHeader {
    static final int FUNCTION_MASK = 0x7f;

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_TMFUNC;
    }

    static TaskMgmtRequest decode(Bhs b) throws IscsiProtocolException {
        return new TaskMgmtRequest(b.immediate(), TmfFunction.of(b.flags() & FUNCTION_MASK), b.u64(8), b.itt(),
                b.u32(Bhs.W20), InitiatorSn.decode(b), b.u32(Bhs.W32), b.u32(Bhs.W36));
    }

    @Override
    public void encode(Bhs b) {
        b.opcode(opcode(), immediate);
        b.flags(Bhs.FINAL | function.value());
        b.u64(8, lun);
        b.itt(itt);
        b.u32(Bhs.W20, referencedTaskTag);
        sn.encode(b);
        b.u32(Bhs.W32, refCmdSn);
        b.u32(Bhs.W36, expDataSn);
    }
}
