package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jrdma.ulp.iser.target.PortalGroup.ChapCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ConfigAdmin factory component: activate adds the target to the shared tree, modify rebuilds it, deactivate removes it. */
class IserTargetFactoryTest {
    static final String T1 = "iqn.2026-12.org.jrdma:t1";
    static final String I1 = "iqn.2026-12.org.jrdma:i1";

    private final TargetTree tree = new TargetTree();
    private final RecordingPortalControl runtime = new RecordingPortalControl();

    IserTargetFactoryTest() {
        tree.attach(runtime);
    }

    static IserTargetConfig config(Map<String, Object> values) {
        return (IserTargetConfig) Proxy.newProxyInstance(IserTargetConfig.class.getClassLoader(),
                new Class<?>[] {IserTargetConfig.class}, (p, m, a) -> {
                    Object v = values.get(m.getName());
                    return v != null ? v : m.getDefaultValue();
                });
    }

    private IserTargetFactory factory() {
        IserTargetFactory f = new IserTargetFactory();
        f.tree = tree;
        return f;
    }

    /**
     * The container may read the target's .cfg before the .cfg of the device with the portal's address: the
     * target is made and its portal waits for the device, instead of a failed activation (a CI failure once).
     */
    @Test
    void aPortalWithNoDeviceYetWaitsForOneInsteadOfFailingActivation() throws Exception {
        runtime.noDevice.add(new InetSocketAddress("127.0.0.1", 3260));
        IserTargetFactory f = factory();
        f.activate(config(Map.of("iqn", T1, "portals", new String[] {"127.0.0.1"}, "luns", new String[] {"ramdisk:rd0:1M"})));
        assertEquals(List.of("enable-when-ready 127.0.0.1:3260"), runtime.drain());
        assertTrue(tree.portalGroup(T1, new InetSocketAddress("127.0.0.1", 3260)).isPresent(), "the target is there");
        f.deactivate();
        assertEquals(List.of("disable 127.0.0.1:3260"), runtime.drain());
    }

    @Test
    void demoModeTargetComesAndGoesWithItsConfiguration(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("disk.img");
        IserTargetFactory f = factory();
        f.activate(config(Map.of("iqn", T1, "portals", new String[] {"192.0.2.1", "192.0.2.2:3261"},
                "luns", new String[] {"ramdisk:rd0:64M", "fileio:f0:" + file + ":1G"})));
        assertEquals(List.of("enable 192.0.2.1:3260", "enable 192.0.2.2:3261"), runtime.drain());
        assertEquals(1L << 30, Files.size(file), "created sparse");
        Tpg tpg = (Tpg) tree.portalGroup(T1, new InetSocketAddress("192.0.2.2", 3261)).orElseThrow();
        assertTrue(tpg.allows("iqn.2004-10.com.ubuntu:01:guest"), "no initiators: demo mode");
        assertFalse(tpg.writeProtected("iqn.2004-10.com.ubuntu:01:guest"));
        assertEquals(Optional.empty(), tpg.chap("iqn.2004-10.com.ubuntu:01:guest"));
        assertEquals(List.of(0, 1), List.copyOf(tpg.visibleLuns("iqn.2004-10.com.ubuntu:01:guest").keySet()));
        assertEquals("fileio/f0", tpg.visibleLuns("x").get(1).storage().path());

        f.modified(config(Map.of("iqn", T1, "portals", new String[] {"192.0.2.1"},
                "luns", new String[] {"ramdisk:rd0:32M"}, "readOnly", true)));
        assertEquals(List.of("disable 192.0.2.1:3260", "disable 192.0.2.2:3261", "enable 192.0.2.1:3260"),
                runtime.drain(), "rebuilt");
        tpg = (Tpg) tree.portalGroup(T1, new InetSocketAddress("192.0.2.1", 3260)).orElseThrow();
        assertEquals(32L << 20, tpg.visibleLuns("x").get(0).storage().size());
        assertTrue(tpg.visibleLuns("x").get(0).readOnly());
        assertTrue(tree.storageObject("fileio", "f0").isEmpty(), "its backstores follow it");

        f.deactivate();
        assertEquals(List.of("disable 192.0.2.1:3260"), runtime.drain());
        assertTrue(tree.targets().isEmpty());
        assertTrue(tree.storageObjects("ramdisk").isEmpty());
    }

    @Test
    void aclsAndChap() throws Exception {
        IserTargetFactory f = factory();
        f.activate(config(Map.of("iqn", T1, "luns", new String[] {"ramdisk:rd0:1M", ""},
                "initiators", new String[] {I1, " "}, "chapUserid", "alice", "chapPassword", "alicepass12",
                "chapMutualUserid", "tgt", "chapMutualPassword", "tgtpass12345")));
        assertEquals(List.of("enable 0.0.0.0:3260"), runtime.drain(), "the default portal");
        PortalGroup pg = tree.portalGroup(T1, new InetSocketAddress("10.0.0.1", 3260)).orElseThrow();
        assertTrue(pg.allows(I1));
        assertFalse(pg.allows("iqn.2004-10.com.ubuntu:01:guest"));
        assertEquals(Optional.of(new ChapCredentials("alice", "alicepass12", "tgt", "tgtpass12345")), pg.chap(I1));
        assertEquals(List.of(0), List.copyOf(((Tpg) pg).visibleLuns(I1).keySet()));
        f.deactivate();
    }

    @Test
    void badConfigurationsFailAndLeaveNothing() throws Exception {
        tree.createRamdisk("taken", 1 << 20);
        Map<String, Object> base = new HashMap<>(Map.of("iqn", T1, "luns", new String[] {"ramdisk:rd0:1M"}));
        for (Map.Entry<String, Object[]> bad : Map.<String, Object[]>of(
                "iqn", new Object[] {"t1", "WWN not valid as: iqn, naa, eui"},
                "portals", new Object[] {new String[] {"192.0.2.1:x"}, "Invalid port in portal 192.0.2.1:x"},
                "luns", new Object[] {new String[] {"ramdisk:rd0:1M", "ramdisk:taken:1M"},
                        "Storage object ramdisk/taken exists"},
                "initiators", new Object[] {new String[] {"bob"}, "WWN not valid as: iqn, naa, eui"},
                "chapUserid", new Object[] {"alice", "CHAP needs both a userid and a password"}).entrySet()) {
            Map<String, Object> values = new HashMap<>(base);
            values.put(bad.getKey(), bad.getValue()[0]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> factory().activate(config(values)));
            assertEquals("ulp-iser: org.jrdma.ulp.iser.target: " + bad.getValue()[1], e.getMessage());
            assertTrue(tree.targets().isEmpty(), bad.getKey());
            assertEquals(List.of("taken"), List.copyOf(tree.storageObjects("ramdisk").keySet()), bad.getKey());
        }
        assertEquals(List.of(), runtime.drain());
        assertEquals(new TargetSpec.Portal("[::1]", 3260), TargetSpec.portal("::1"));
        assertEquals(new TargetSpec.Portal("[fe80::1]", 860), TargetSpec.portal("[fe80::1]:860"));
        assertEquals(new TargetSpec.Lun("fileio", "f", Path.of("/a:b/c"), 0), TargetSpec.lun("fileio:f:/a:b/c:"));
    }

    @Test
    void twoConfigurationsShareTheTree() throws Exception {
        IserTargetFactory a = factory();
        IserTargetFactory b = factory();
        a.activate(config(Map.of("iqn", T1, "luns", new String[] {"ramdisk:ra:1M"})));
        b.activate(config(Map.of("iqn", "iqn.2026-12.org.jrdma:t2", "luns", new String[] {"ramdisk:rb:1M"})));
        assertEquals(List.of("enable 0.0.0.0:3260"), runtime.drain(), "one listener for both");
        assertEquals(2, tree.sendTargets(I1, new InetSocketAddress("192.0.2.1", 3260)).size());
        a.deactivate();
        assertEquals(List.of(), runtime.drain(), "t2 still listens there");
        assertEquals(List.of("rb"), List.copyOf(tree.storageObjects("ramdisk").keySet()));
        b.deactivate();
        assertEquals(List.of("disable 0.0.0.0:3260"), runtime.drain());
    }
}
