package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * What the target's runtime (logins, sessions, discovery) asks of the configuration, LIO's configfs tree as
 * targetcli builds it. The configuration side implements it; the runtime only reads, at login time, so a
 * change applies to the next login (as in LIO).
 */
public interface TargetDirectory {

    /**
     * The enabled portal group of {@code targetName} that has an iSER-enabled portal at {@code portal} (the
     * address the connection came in on; a 0.0.0.0 portal matches any address of its port), or empty: the
     * login gets "target not found" (status 0x0203).
     */
    Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal);

    /**
     * SendTargets=All for a discovery session of {@code initiatorName} that came in on {@code portal}: every
     * target with an iSER-enabled portal the initiator may log in to, with its portals
     * ({@code TargetAddress=IP:port,tag}).
     */
    List<SendTarget> sendTargets(String initiatorName, InetSocketAddress portal);

    /** One SendTargets answer: a TargetName and its TargetAddress values. */
    record SendTarget(String targetName, List<String> targetAddresses) {
        public SendTarget {
            targetAddresses = List.copyOf(targetAddresses);
        }
    }
}
