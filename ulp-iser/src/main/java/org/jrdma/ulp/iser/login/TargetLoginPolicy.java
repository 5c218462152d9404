package org.jrdma.ulp.iser.login;

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

    /** CHAP secrets {userid, password, mutualUserid, mutualPassword} (mutual ones null), or empty: AuthMethod=None. */
    Optional<String[]> chap(String initiatorName, String targetName);

    /** A fresh non-zero TSIH for a new session. */
    int allocateTsih();

    /** The SendTargets=All answer for a discovery session: key/value pairs in order (TargetName, TargetAddress...). */
    List<String[]> sendTargets(String initiatorName);
}
