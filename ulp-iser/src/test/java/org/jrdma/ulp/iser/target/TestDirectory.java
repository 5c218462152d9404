package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.ulp.iser.scsi.LunTable;
import org.jrdma.ulp.iser.scsi.RamdiskBackstore;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiLun;

/**
 * Test configuration: targets by IQN, each one TPG (tag 1) with one ramdisk LUN 0, on one portal, demo mode
 * (initiators with "denied" in their name refused).
 */
public final class TestDirectory implements TargetDirectory {
    public static final InetSocketAddress PORTAL = new InetSocketAddress("192.0.2.1", 3260);

    record Group(String targetName, int tag, ScsiExecutor lunTable) implements PortalGroup {
        @Override public boolean allows(String initiatorName) { return !initiatorName.contains("denied"); }
        @Override public Optional<ChapCredentials> chap(String initiatorName) { return Optional.empty(); }
        @Override public ScsiExecutor luns(String initiatorName) { return lunTable; }
        @Override public boolean writeProtected(String initiatorName) { return false; }
    }

    private final Map<String, Group> targets = new ConcurrentHashMap<>();
    private final InetSocketAddress portal;

    TestDirectory() {
        this(PORTAL);
    }

    /** Targets reachable on {@code portal} only. */
    public TestDirectory(InetSocketAddress portal) {
        this.portal = portal;
    }

    /** Adds a target with a ramdisk of {@code size} bytes as LUN 0. */
    public TestDirectory add(String iqn, long size) {
        TreeMap<Integer, ScsiLun> luns = new TreeMap<>();
        luns.put(0, new ScsiLun(new RamdiskBackstore("rd-" + targets.size(), size), false));
        targets.put(iqn, new Group(iqn, 1, new LunTable(luns)));
        return this;
    }

    /** Adds a target whose LUNs are {@code executor}. */
    public TestDirectory add(String iqn, ScsiExecutor executor) {
        targets.put(iqn, new Group(iqn, 1, executor));
        return this;
    }

    @Override
    public Optional<PortalGroup> portalGroup(String targetName, InetSocketAddress portal) {
        return this.portal.equals(portal) ? Optional.ofNullable(targets.get(targetName)) : Optional.empty();
    }

    @Override
    public List<SendTarget> sendTargets(String initiatorName, InetSocketAddress portal) {
        return targets.keySet().stream().sorted()
                .map(t -> new SendTarget(t, List.of("192.0.2.1:3260,1"))).toList();
    }
}
