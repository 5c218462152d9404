package org.jrdma.ulp.iser.pdu;

/**
 * The iSCSI opcodes (RFC 7143 section 11.2.1.2, Linux {@code ISCSI_OP_*}): value, who sends it, what its
 * opcode-specific fields are, and the record that decodes it.
 */
public enum IscsiOpcode {
    NOOP_OUT(0x00, Sender.INITIATOR, "LUN, ITT, TTT, CmdSN, ExpStatSN; ping data", NopOut::decode),
    SCSI_CMD(0x01, Sender.INITIATOR, "F R W ATTR, LUN, ITT, EDTL, CmdSN, ExpStatSN, CDB; immediate data",
            ScsiCommand::decode),
    SCSI_TMFUNC(0x02, Sender.INITIATOR, "function, LUN, ITT, RTT, CmdSN, ExpStatSN, RefCmdSN, ExpDataSN",
            TaskMgmtRequest::decode),
    LOGIN(0x03, Sender.INITIATOR, "T C CSG NSG, versions, ISID, TSIH, ITT, CID, CmdSN, ExpStatSN; text keys",
            LoginRequest::decode),
    TEXT(0x04, Sender.INITIATOR, "F C, LUN, ITT, TTT, CmdSN, ExpStatSN; text keys", TextRequest::decode),
    SCSI_DATA_OUT(0x05, Sender.INITIATOR, "F, LUN, ITT, TTT, ExpStatSN, DataSN, buffer offset; data",
            DataOut::decode),
    LOGOUT(0x06, Sender.INITIATOR, "reason, ITT, CID, CmdSN, ExpStatSN", LogoutRequest::decode),
    SNACK(0x10, Sender.INITIATOR, "type, LUN, ITT, TTT, ExpStatSN, BegRun, RunLength", OtherHeader::decode),
    NOOP_IN(0x20, Sender.TARGET, "LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN; ping data", NopIn::decode),
    SCSI_CMD_RSP(0x21, Sender.TARGET,
            "o u O U, response, status, ITT, SNACK tag, StatSN, ExpCmdSN, MaxCmdSN, ExpDataSN, residuals; sense",
            ScsiResponse::decode),
    SCSI_TMFUNC_RSP(0x22, Sender.TARGET, "response, ITT, StatSN, ExpCmdSN, MaxCmdSN", TaskMgmtResponse::decode),
    LOGIN_RSP(0x23, Sender.TARGET,
            "T C CSG NSG, versions, ISID, TSIH, ITT, StatSN, ExpCmdSN, MaxCmdSN, status class/detail; text keys",
            LoginResponse::decode),
    TEXT_RSP(0x24, Sender.TARGET, "F C, LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN; text keys", TextResponse::decode),
    SCSI_DATA_IN(0x25, Sender.TARGET,
            "F A O U S, status, LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN, DataSN, buffer offset, residual; data",
            DataIn::decode),
    LOGOUT_RSP(0x26, Sender.TARGET, "response, ITT, StatSN, ExpCmdSN, MaxCmdSN, Time2Wait, Time2Retain",
            LogoutResponse::decode),
    R2T(0x31, Sender.TARGET, "LUN, ITT, TTT, StatSN, ExpCmdSN, MaxCmdSN, R2TSN, buffer offset, desired length",
            R2t::decode),
    ASYNC_EVENT(0x32, Sender.TARGET, "LUN, StatSN, ExpCmdSN, MaxCmdSN, event, vcode, parameters; sense",
            OtherHeader::decode),
    REJECT(0x3f, Sender.TARGET, "reason, StatSN, ExpCmdSN, MaxCmdSN, DataSN/R2TSN; the rejected BHS",
            Reject::decode);

    /** Who sends a PDU: the initiator's opcodes are 0x00..0x1f, the target's 0x20..0x3f. */
    public enum Sender {
        INITIATOR, TARGET
    }

    /** Decodes the opcode-specific part of a BHS. */
    @FunctionalInterface
    interface Decoder {
        IscsiHeader decode(Bhs bhs) throws IscsiProtocolException;
    }

    private static final IscsiOpcode[] BY_VALUE = new IscsiOpcode[Bhs.OPCODE_MASK + 1];

    static {
        for (IscsiOpcode op : values()) {
            BY_VALUE[op.value] = op;
        }
    }

    private final int value;
    private final Sender sender;
    private final String fields;
    private final Decoder decoder;

    IscsiOpcode(int value, Sender sender, String fields, Decoder decoder) {
        this.value = value;
        this.sender = sender;
        this.fields = fields;
        this.decoder = decoder;
    }

    public int value() {
        return value;
    }

    public Sender sender() {
        return sender;
    }

    /** The opcode-specific fields, as RFC 7143 section 11 lists them. */
    public String fields() {
        return fields;
    }

    IscsiHeader decode(Bhs bhs) throws IscsiProtocolException {
        return decoder.decode(bhs);
    }

    /** The opcode with this 6-bit value; vendor-specific and unassigned ones are not supported. */
    public static IscsiOpcode of(int value) throws IscsiProtocolException {
        IscsiOpcode op = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (op == null) {
            throw new IscsiProtocolException(RejectReason.CMD_NOT_SUPPORTED,
                    "unknown iSCSI opcode 0x" + Integer.toHexString(value));
        }
        return op;
    }
}
