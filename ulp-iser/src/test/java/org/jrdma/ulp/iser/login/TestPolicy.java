package org.jrdma.ulp.iser.login;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A target configuration for login tests: targets with their TPGT, ACLs, CHAP secrets, LIO's alias. */
class TestPolicy implements TargetLoginPolicy {
    final Map<String, Integer> targets = new HashMap<>();
    final Set<String> acl = new HashSet<>();
    final Map<String, ChapSecrets> chap = new HashMap<>();
    final List<String[]> sendTargets = new ArrayList<>();
    int nextTsih = 1;
    int statSn = LoginCaptures.SESSION_STATSN;
    boolean existingSession;

    /** LIO of the captures: one target, TPG 1, any initiator. */
    static TestPolicy lio() {
        TestPolicy p = new TestPolicy();
        p.targets.put(LoginCaptures.TARGET, 1);
        p.acl.add("*");
        p.sendTargets.add(new String[] {"TargetName", LoginCaptures.TARGET});
        p.sendTargets.add(new String[] {"TargetAddress", "192.0.2.11:3260,1"});
        return p;
    }

    @Override
    public Optional<Integer> portalGroupTag(String targetName) {
        return Optional.ofNullable(targets.get(targetName));
    }

    @Override
    public boolean allows(String initiatorName, String targetName) {
        return acl.contains("*") || acl.contains(initiatorName);
    }

    @Override
    public Optional<String[]> chap(String initiatorName, String targetName) {
        ChapSecrets s = chap.get(targetName == null ? "discovery" : targetName);
        return s == null ? Optional.empty()
                : Optional.of(new String[] {s.userid(), s.password(), s.mutualUserid(), s.mutualPassword()});
    }

    @Override
    public int allocateTsih() {
        return nextTsih++;
    }

    @Override
    public List<String[]> sendTargets(String initiatorName) {
        return sendTargets;
    }

    @Override
    public Optional<String> targetAlias(String targetName) {
        return Optional.of("LIO Target");
    }

    @Override
    public boolean sessionExists(long isid, int tsih) {
        return existingSession;
    }

    @Override
    public int initialStatSn() {
        return statSn;
    }
}
