package org.jrdma.ulp.iser.login;

import java.util.List;

/** One target of a SendTargets answer: its name and its portals ("ip:port,tpgt", as iscsiadm prints them). */
public record DiscoveredTarget(String targetName, List<String> targetAddresses) {
    public DiscoveredTarget {
        targetAddresses = List.copyOf(targetAddresses);
    }
}
