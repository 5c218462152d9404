package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * What the target runtime asks of the configuration (LIO's configfs tree that targetcli edits): which portal
 * group serves a target on a portal, and the SendTargets answer. Thread-safe; answers reflect the configuration
 * at the time of the call (a login sees the tree as it is then).
 */
public interface TargetDirectory {
    /**
     * The enabled portal group of {@code targetName} reachable through {@code portal} (the local address the
     * connection came in on), or empty: the login answers 0x0203 target not found.
     */
    Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal);

    /**
     * The SendTargets=All answer for {@code initiatorName} asking through {@code portal}: key/value pairs in
     * order, {@code {"TargetName", iqn}} then its {@code {"TargetAddress", "ip:port,tag"}} pairs, per target the
     * initiator may see.
     */
    List<String[]> sendTargets(String initiatorName, InetSocketAddress portal);
}
