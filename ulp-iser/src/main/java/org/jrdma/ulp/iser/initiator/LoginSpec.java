package org.jrdma.ulp.iser.initiator;

import org.jrdma.ulp.iser.login.SessionParams.SessionType;

/**
 * What one connection's login proposes: the names, the session identity (ISID; TSIH 0 for a new session or a
 * reinstatement), the first CmdSN and CHAP secrets (null: AuthMethod=None).
 */
record LoginSpec(String initiatorName, String initiatorAlias, String targetName, SessionType sessionType,
        long isid, int tsih, int cmdSn, String chapUsername, String chapPassword, String chapUsernameIn,
        String chapPasswordIn) {
}
