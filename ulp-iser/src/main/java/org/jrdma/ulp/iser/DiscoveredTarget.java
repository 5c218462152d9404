package org.jrdma.ulp.iser;

import java.net.InetSocketAddress;
import org.jrdma.ulp.iser.conn.InetText;

/**
 * One SendTargets answer entry: a target and one of its portals with the portal group tag, as open-iscsi
 * prints it ({@code 192.0.2.11:3260,1 iqn.2003-01.org.linux-iscsi.host.x8664:sn.0123}).
 */
public record DiscoveredTarget(String targetName, InetSocketAddress portal, int portalGroupTag) {

    /** open-iscsi's discovery line: {@code IP:PORT,TAG IQN}, an IPv6 address (an IB GID) as {@code [fe80::1]}. */
    @Override
    public String toString() {
        return InetText.host(portal.getAddress(), true) + ":" + portal.getPort() + "," + portalGroupTag + " " + targetName;
    }
}
