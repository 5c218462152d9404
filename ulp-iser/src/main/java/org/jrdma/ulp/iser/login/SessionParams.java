package org.jrdma.ulp.iser.login;

/**
 * What a login negotiated (RFC 7143 section 13, RFC 7145 section 6): the session-wide keys and this
 * connection's declarative ones, plus the names and identifiers the full feature phase needs. Both sides
 * build the same values from the same exchange.
 *
 * @param sessionType                   Normal or Discovery
 * @param isid                          the initiator's 6-byte ISID (low 48 bits)
 * @param tsih                          the target-assigned session handle (non-zero after the login)
 * @param targetPortalGroupTag          TargetPortalGroupTag of the login response
 * @param initiatorRecvDataSegmentLength the largest data segment the target may send in one PDU
 *                                      (iSER: InitiatorRecvDataSegmentLength; iSCSI/TCP: the initiator's
 *                                      MaxRecvDataSegmentLength)
 * @param targetRecvDataSegmentLength   the largest data segment the initiator may send in one PDU
 *                                      (immediate data, Text, NOP-Out data)
 * @param maxOutstandingUnexpectedPdus  RFC 7145's MaxOutstandingUnexpectedPDUs (0: no limit declared)
 * @param expCmdSn                      the CmdSN the first full-feature command carries (the login's CmdSN)
 * @param statSn                        the StatSN of the final login response; the first full-feature
 *                                      response carries statSn + 1
 */
public record SessionParams(
        SessionType sessionType,
        String initiatorName, String initiatorAlias, String targetName, String targetAlias,
        long isid, int tsih, int targetPortalGroupTag,
        boolean rdmaExtensions, boolean initialR2t, boolean immediateData,
        int maxBurstLength, int firstBurstLength, int maxOutstandingR2t,
        int initiatorRecvDataSegmentLength, int targetRecvDataSegmentLength, int maxOutstandingUnexpectedPdus,
        int maxConnections, int errorRecoveryLevel, int defaultTime2Wait, int defaultTime2Retain,
        boolean dataPduInOrder, boolean dataSequenceInOrder,
        int expCmdSn, int statSn) {

    /** SessionType: a discovery session only does Text (SendTargets) and Logout. */
    public enum SessionType { NORMAL, DISCOVERY }
}
