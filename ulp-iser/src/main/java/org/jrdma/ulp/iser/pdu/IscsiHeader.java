package org.jrdma.ulp.iser.pdu;

/**
 * The opcode-specific view of a BHS: one record per PDU kind. TotalAHSLength and DataSegmentLength are framing
 * and belong to {@link IscsiPdu}; each record writes the other fields, reserved ones stay zero.
 */
public sealed interface IscsiHeader permits NopOut, NopIn, ScsiCommand, ScsiResponse, TaskMgmtRequest,
        TaskMgmtResponse, LoginRequest, LoginResponse, TextRequest, TextResponse, DataOut, DataIn, LogoutRequest,
        LogoutResponse, R2t, Reject, OtherHeader {

    IscsiOpcode opcode();

    /** The Initiator Task Tag (0xffffffff = reserved, e.g. in Reject and unsolicited NOP-In). */
    int itt();

    /** Writes the opcode, flags and opcode-specific fields into an empty BHS. */
    void encode(Bhs bhs);

    /** Decodes any BHS by its opcode. */
    static IscsiHeader decode(Bhs bhs) throws IscsiProtocolException {
        return IscsiOpcode.of(bhs.opcodeValue()).decode(bhs);
    }
}
