package org.jrdma.ulp.iser.login;

import org.jrdma.ulp.iser.login.SessionParams.SessionType;

/**
 * What an initiator logs in with (open-iscsi's node record).
 *
 * @param initiatorName the InitiatorName (iqn)
 * @param initiatorAlias the InitiatorAlias, or null
 * @param targetName    the TargetName, null for a discovery session
 * @param sessionType   Normal or Discovery
 * @param isid          the 6-byte ISID (low 48 bits)
 * @param tsih          0 for a new session
 * @param cmdSn         the CmdSN of the login (the first command's CmdSN)
 * @param chap          CHAP secrets (userid/password; mutualUserid/mutualPassword to authenticate the target),
 *                      or null for AuthMethod=None
 * @param proposals     the operational keys offered
 */
public record InitiatorLoginParams(String initiatorName, String initiatorAlias, String targetName,
        SessionType sessionType, long isid, int tsih, int cmdSn, ChapSecrets chap, OperationalProposals proposals) {

    public InitiatorLoginParams {
        if (initiatorName == null || sessionType == null || proposals == null) {
            throw new IllegalArgumentException("an initiator login needs a name, a session type and proposals");
        }
        if (sessionType == SessionType.NORMAL && targetName == null) {
            throw new IllegalArgumentException("a Normal session needs a TargetName");
        }
    }

    /** A new Normal session with open-iscsi's iSER proposals and no CHAP. */
    public static InitiatorLoginParams normal(String initiatorName, String targetName, long isid) {
        return new InitiatorLoginParams(initiatorName, null, targetName, SessionType.NORMAL, isid, 0, 0, null,
                OperationalProposals.openIscsiIser());
    }

    /** A discovery session with open-iscsi's proposals and no CHAP. */
    public static InitiatorLoginParams discovery(String initiatorName, long isid) {
        return new InitiatorLoginParams(initiatorName, null, null, SessionType.DISCOVERY, isid, 0, 0, null,
                OperationalProposals.openIscsiIser());
    }

    public InitiatorLoginParams withChap(ChapSecrets secrets) {
        return new InitiatorLoginParams(initiatorName, initiatorAlias, targetName, sessionType, isid, tsih, cmdSn,
                secrets, proposals);
    }

    public InitiatorLoginParams withAlias(String alias) {
        return new InitiatorLoginParams(initiatorName, alias, targetName, sessionType, isid, tsih, cmdSn, chap,
                proposals);
    }
}
