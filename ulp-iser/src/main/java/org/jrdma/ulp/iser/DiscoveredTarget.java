package org.jrdma.ulp.iser;

import java.net.InetSocketAddress;

/**
 * One SendTargets answer entry: a target and one of its portals with the portal group tag, as open-iscsi
 * prints it ({@code 192.0.2.11:3260,1 iqn.2003-01.org.linux-iscsi.host.x8664:sn.0123}).
 */
public record DiscoveredTarget(String targetName, InetSocketAddress portal, int portalGroupTag) {

    /** open-iscsi's discovery line: {@code IP:PORT,TAG IQN}. */
    @Override
    public String toString() {
        return portal.getAddress().getHostAddress() + ":" + portal.getPort() + "," + portalGroupTag + " "
                + targetName;
    }
}
