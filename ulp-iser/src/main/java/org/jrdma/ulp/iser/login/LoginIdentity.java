package org.jrdma.ulp.iser.login;

import org.jrdma.ulp.iser.login.SessionParams.SessionType;

/**
 * The names and handles a login settles besides the negotiated keys: who logs in to what, the ISID/TSIH, the
 * portal group, the sequence numbers the full feature phase starts from, and each side's
 * MaxRecvDataSegmentLength declaration (iSCSI without RDMAExtensions).
 */
record LoginIdentity(SessionType sessionType, String initiatorName, String initiatorAlias, String targetName,
        String targetAlias, long isid, int tsih, int targetPortalGroupTag, int initiatorMaxRecv, int targetMaxRecv,
        int expCmdSn, int statSn) {

    /** The parameters of a finished login, from {@code n}'s values in force. */
    SessionParams params(Negotiation n) {
        boolean rdma = n.rdma();
        return new SessionParams(sessionType, initiatorName, initiatorAlias, targetName, targetAlias, isid, tsih,
                targetPortalGroupTag, rdma, bool(n, LoginKey.INITIAL_R2T), bool(n, LoginKey.IMMEDIATE_DATA),
                num(n, LoginKey.MAX_BURST_LENGTH), num(n, LoginKey.FIRST_BURST_LENGTH),
                num(n, LoginKey.MAX_OUTSTANDING_R2T),
                rdma ? num(n, LoginKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH) : initiatorMaxRecv,
                rdma ? num(n, LoginKey.TARGET_RECV_DATA_SEGMENT_LENGTH) : targetMaxRecv,
                rdma ? num(n, LoginKey.MAX_OUTSTANDING_UNEXPECTED_PDUS) : 0,
                num(n, LoginKey.MAX_CONNECTIONS), num(n, LoginKey.ERROR_RECOVERY_LEVEL),
                num(n, LoginKey.DEFAULT_TIME2WAIT), num(n, LoginKey.DEFAULT_TIME2RETAIN),
                bool(n, LoginKey.DATA_PDU_IN_ORDER), bool(n, LoginKey.DATA_SEQUENCE_IN_ORDER), expCmdSn, statSn);
    }

    private static boolean bool(Negotiation n, LoginKey key) {
        return "Yes".equals(n.value(key));
    }

    private static int num(Negotiation n, LoginKey key) {
        return (int) KeyAnswer.parse(key, n.value(key));
    }

    /** A MaxRecvDataSegmentLength declaration, or the RFC default 8192 when absent or out of range. */
    static int maxRecv(String declared) {
        long v = declared == null ? -1 : KeyAnswer.parse(LoginKey.MAX_RECV_DATA_SEGMENT_LENGTH, declared);
        return v < 0 ? 8192 : (int) v;
    }
}
