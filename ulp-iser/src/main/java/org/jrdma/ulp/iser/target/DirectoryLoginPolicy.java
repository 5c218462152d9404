package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.login.TargetLoginPolicy;
import org.jrdma.ulp.iser.target.PortalGroup.ChapCredentials;
import org.jrdma.ulp.iser.target.TargetDirectory.SendTarget;

/**
 * The login's questions answered from the configuration, for a connection that came in on {@code portal}
 * (LIO looks the TPG up by the network portal the same way).
 */
final class DirectoryLoginPolicy implements TargetLoginPolicy {
    private final TargetDirectory directory;
    private final InetSocketAddress portal;
    private final TargetSessions sessions;

    DirectoryLoginPolicy(TargetDirectory directory, InetSocketAddress portal, TargetSessions sessions) {
        this.directory = directory;
        this.portal = portal;
        this.sessions = sessions;
    }

    private Optional<PortalGroup> group(String targetName) {
        return targetName == null ? Optional.empty() : directory.portalGroup(targetName, portal);
    }

    @Override
    public Optional<Integer> portalGroupTag(String targetName) {
        return group(targetName).map(PortalGroup::tag);
    }

    @Override
    public boolean allows(String initiatorName, String targetName) {
        return group(targetName).map(g -> g.allows(initiatorName)).orElse(false);
    }

    @Override
    public Optional<String[]> chap(String initiatorName, String targetName) {
        return group(targetName).flatMap(g -> g.chap(initiatorName)).map(DirectoryLoginPolicy::secrets);
    }

    private static String[] secrets(ChapCredentials c) {
        return new String[] {c.userid(), c.password(), c.mutualUserid(), c.mutualPassword()};
    }

    @Override
    public int allocateTsih() {
        return sessions.allocateTsih();
    }

    @Override
    public boolean sessionExists(long isid, int tsih) {
        return sessions.exists(isid, tsih);
    }

    @Override
    public List<String[]> sendTargets(String initiatorName) {
        List<String[]> pairs = new ArrayList<>();
        for (SendTarget t : directory.sendTargets(initiatorName, portal)) {
            pairs.add(new String[] {"TargetName", t.targetName()});
            t.targetAddresses().forEach(a -> pairs.add(new String[] {"TargetAddress", a}));
        }
        return pairs;
    }
}
