package org.jrdma.ulp.iser.login;

import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;

/**
 * What the target's login asks of the target configuration (the target package adapts its
 * {@code TargetDirectory}/{@code PortalGroup} to this, so the login package does not depend on it).
 */
public interface TargetLoginPolicy {
    /** The portal group tag of {@code targetName} on the portal the connection came in on, or empty (0x0203). */
    Optional<Integer> portalGroupTag(String targetName);

    /** Whether the initiator may log in to the target (0x0202 if not). */
    boolean allows(String initiatorName, String targetName);

    /**
     * CHAP secrets {userid, password, mutualUserid, mutualPassword} (mutual ones null), or empty: AuthMethod=None.
     * {@code targetName} is null for a discovery session (targetcli's {@code /iscsi discovery_auth}).
     */
    Optional<String[]> chap(String initiatorName, String targetName);

    /** A fresh non-zero TSIH for a new session. */
    int allocateTsih();

    /** The SendTargets=All answer for a discovery session: key/value pairs in order (TargetName, TargetAddress...). */
    List<String[]> sendTargets(String initiatorName);

    /** {@link #chap} as a record; override this one instead of {@link #chap} if convenient. */
    default Optional<ChapSecrets> chapSecrets(String initiatorName, String targetName) {
        return chap(initiatorName, targetName).map(ChapSecrets::of);
    }

    /**
     * TargetAlias declared in the login (LIO: "LIO Target"), or empty to declare none; {@code targetName} is null
     * in a discovery session (LIO declares its alias there too).
     */
    default Optional<String> targetAlias(String targetName) {
        return Optional.empty();
    }

    /** The TargetPortalGroupTag a discovery session's login declares (LIO: the portal's TPG, 1). */
    default int discoveryPortalGroupTag() {
        return 1;
    }

    /**
     * Whether a session with this ISID and non-zero TSIH exists (a login adding a connection to it); with
     * MaxConnections=1 such a login is refused 0x0206, an unknown one 0x020a.
     */
    default boolean sessionExists(long isid, int tsih) {
        return false;
    }

    /** The StatSN of the connection's first login response (LIO: random). */
    default int initialStatSn() {
        return new SecureRandom().nextInt();
    }
}
