package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration tree: names, sizes, backstores, targets, and portals driving the runtime's listeners. */
class TargetTreeTest {
    static final String IQN = "iqn.2026-12.org.jrdma:t1";

    static void assertError(String text, Executable e) {
        TargetConfigException x = assertThrows(TargetConfigException.class, e::run);
        assertEquals(text, x.getMessage());
    }

    interface Executable {
        void run() throws Exception;
    }

    @Test
    void wwnsAreCheckedAndNormalizedAsRtslib() throws Exception {
        assertEquals(IQN, Wwn.normalize(" IQN.2026-12.ORG.jrdma:T1 "));
        assertEquals("iqn.2003-01.org.linux-iscsi.rxepeer:iser", Wwn.normalize("iqn.2003-01.org.linux-iscsi.rxepeer:iser"));
        assertEquals("naa.5001405abcdef012", Wwn.normalize("naa.5001405ABCDEF012"));
        assertEquals("naa.5001405abcdef012", Wwn.normalize("0x50:01:40:5a:bc:de:f0:12"));
        assertEquals("eui.0014050123456789", Wwn.normalize("eui.0014050123456789"));
        for (String bad : new String[] {"iqn.2026-13.org.jrdma:t1", "iqn.26-12.org.x", "iqn.2026-12.org_jrdma.x",
                "iqn.2026-12.org", "t1", "", "eui.123", "naa.0001405abcdef012"}) {
            assertError("WWN not valid as: iqn, naa, eui", () -> Wwn.normalize(bad));
        }
        assertTrue(Wwn.isValid(IQN));
        assertFalse(Wwn.isValid("IQN.2026-12.org.jrdma:t1"));
    }

    @Test
    void sizesAsTargetcliReadsAndWritesThem() throws Exception {
        assertEquals(64L << 20, Sizes.parse("64M"));
        assertEquals(1L << 30, Sizes.parse("1G"));
        assertEquals(512L << 10, Sizes.parse("512K"));
        assertEquals(4096, Sizes.parse("4096"));
        assertEquals(2L << 30, Sizes.parse("2GiB"));
        assertEquals(10L << 20, Sizes.parse("10mb"));
        assertEquals(3L << 40, Sizes.parse("3T"));
        for (String bad : new String[] {"64X", "", "M", "-1", "1.5G", "99999999999999999999"}) {
            assertError("Cannot interpret size, wrong format: " + bad, () -> Sizes.parse(bad));
        }
        assertEquals("64.0MiB", Sizes.human(64L << 20));
        assertEquals("1.0GiB", Sizes.human(1L << 30));
        assertEquals("512 bytes", Sizes.human(512));
        assertEquals("1.5KiB", Sizes.human(1536));
    }

    @Test
    void backstoresByPluginAndName(@TempDir Path dir) throws Exception {
        TargetTree tree = new TargetTree();
        StorageObject rd = tree.createRamdisk("rd0", 64L << 20);
        assertEquals("ramdisk/rd0", rd.path());
        assertEquals(64L << 20, rd.size());
        assertError("Storage object ramdisk/rd0 exists", () -> tree.createRamdisk("rd0", 1 << 20));
        assertError("A storage object's name cannot contain  /, newline or spaces/tabs",
                () -> tree.createRamdisk("a b", 1 << 20));
        Path file = dir.resolve("disk.img");
        StorageObject fio = tree.createFileio("f0", file, 16L << 20);
        assertEquals(16L << 20, Files.size(file), "created sparse to the size");
        assertEquals(file.toAbsolutePath(), fio.file());
        assertError("storage object for " + file.toAbsolutePath() + " already exists: f0",
                () -> tree.createFileio("f1", file, 0));
        assertEquals(List.of("rd0"), List.copyOf(tree.storageObjects("ramdisk").keySet()));
        assertFalse(tree.activated(rd));
        Tpg tpg = tree.createTarget(IQN).createTpg(null);
        tpg.createLun(rd, null, false, null);
        assertTrue(tree.activated(rd));
        tree.deleteStorageObject("ramdisk", "rd0");
        assertTrue(tpg.luns().isEmpty(), "the LUN went with its storage object");
        assertError("No storage object named rd0.", () -> tree.deleteStorageObject("ramdisk", "rd0"));
        tree.clear();
        assertTrue(tree.targets().isEmpty());
        assertTrue(tree.storageObjects("fileio").isEmpty());
    }

    @Test
    void targetsTpgsLunsAndAcls() throws Exception {
        TargetTree tree = new TargetTree();
        IscsiTarget t = tree.createTarget(IQN);
        assertError("This Target already exists in configFS", () -> tree.createTarget(IQN.toUpperCase()));
        Tpg tpg = t.createTpg(null);
        assertEquals(1, tpg.tag());
        assertEquals(0, tpg.attribute(TpgAttribute.AUTHENTICATION), "targetcli sets authentication=0");
        assertEquals(1, tpg.attribute(TpgAttribute.DEMO_MODE_WRITE_PROTECT), "LIO's default");
        assertEquals(2, t.createTpg(null).tag());
        StorageObject a = tree.createRamdisk("a", 1 << 20);
        StorageObject b = tree.createRamdisk("b", 1 << 20);
        tpg.createAcl("iqn.2026-12.org.jrdma:i1", null);
        List<Tpg.AclMapping> mapped = new java.util.ArrayList<>();
        assertEquals(0, tpg.createLun(a, null, false, mapped).lun());
        assertEquals(List.of(new Tpg.AclMapping("iqn.2026-12.org.jrdma:i1", new MappedLun(0, 0, false))), mapped);
        assertError("lun for storage object ramdisk/a already exists", () -> tpg.createLun(a, 5, false, null));
        assertError("LUN must be 0 to 16383", () -> tpg.createLun(b, 16384, false, null));
        assertEquals(7, tpg.createLun(b, 7, false, null).lun());
        List<MappedLun> acl2 = new java.util.ArrayList<>();
        tpg.createAcl("iqn.2026-12.org.jrdma:i2", acl2);
        assertEquals(List.of(new MappedLun(0, 0, false), new MappedLun(7, 7, false)), acl2);
        assertError("This NodeACL already exists in configFS", () -> tpg.createAcl("iqn.2026-12.org.jrdma:i2", null));
        assertError("WWN not valid as: iqn, naa, eui", () -> tpg.createAcl("bob", null));
        tpg.deleteLun(0);
        assertEquals(List.of(7), List.copyOf(tpg.acl("iqn.2026-12.org.jrdma:i2").mappedLuns().keySet()));
        assertError("This LUN does not exist in configFS", () -> tpg.deleteLun(0));
        assertError("Cannot find attribute: nope", () -> tpg.setAttribute("nope", 1));
        assertError("Cannot set attribute generate_node_acls: [Errno 22] Invalid argument",
                () -> tpg.setAttribute("generate_node_acls", 2));
        tree.deleteTarget(IQN);
        assertError("This Target does not exist in configFS", () -> tree.target(IQN));
    }

    @Test
    void iserPortalsDriveTheListenersOncePerAddress() throws Exception {
        TargetTree tree = new TargetTree();
        RecordingPortalControl rt = new RecordingPortalControl();
        Tpg t1 = tree.createTarget(IQN).createTpg(null);
        Tpg t2 = tree.createTarget("iqn.2026-12.org.jrdma:t2").createTpg(null);
        t1.createPortal("0.0.0.0", 3260);
        t1.enableIser("0.0.0.0", 3260, true);
        assertTrue(t1.portal("0.0.0.0", 3260).iser(), "recorded before a runtime is there");
        tree.attach(rt);
        assertEquals(List.of("enable 0.0.0.0:3260"), rt.drain(), "the runtime takes over what is configured");
        t2.createPortal("0.0.0.0", 3260);
        t2.enableIser("0.0.0.0", 3260, true);
        assertEquals(List.of(), rt.drain(), "targets share the listener");
        t1.createPortal("192.0.2.1", 3260);
        assertEquals(List.of(), rt.drain(), "a portal without iSER listens on nothing");
        assertError("This NetworkPortal already exists in configFS", () -> t1.createPortal("192.0.2.1", 3260));
        rt.refused.add(new InetSocketAddress("192.0.2.1", 3260));
        assertError("Cannot change iser", () -> t1.enableIser("192.0.2.1", 3260, true));
        assertFalse(t1.portal("192.0.2.1", 3260).iser());
        rt.refused.clear();
        t1.enableIser("192.0.2.1", 3260, true);
        t1.enableIser("192.0.2.1", 3260, true);
        assertEquals(List.of("enable 192.0.2.1:3260"), rt.drain(), "once");
        t1.enableIser("192.0.2.1", 3260, false);
        assertEquals(List.of("disable 192.0.2.1:3260"), rt.drain());
        t1.enableIser("192.0.2.1", 3260, true);
        t1.deletePortal("192.0.2.1", 3260);
        assertEquals(List.of("enable 192.0.2.1:3260", "disable 192.0.2.1:3260"), rt.drain());
        assertError("This NetworkPortal does not exist in configFS", () -> t1.deletePortal("192.0.2.1", 3260));
        assertError("Could not create NetworkPortal in configFS: invalid address host.example",
                () -> t1.createPortal("host.example", 3260));
        assertError("Invalid port", () -> t1.createPortal("192.0.2.1", 70000));
        tree.deleteTarget(IQN);
        assertEquals(List.of(), rt.drain(), "t2 still uses 0.0.0.0:3260");
        tree.deleteTarget("iqn.2026-12.org.jrdma:t2");
        assertEquals(List.of("disable 0.0.0.0:3260"), rt.drain());
        Tpg t3 = tree.createTarget("iqn.2026-12.org.jrdma:t3").createTpg(null);
        t3.createPortal("[::1]", 3260);
        t3.enableIser("[::1]", 3260, true);
        assertEquals(List.of("enable 0:0:0:0:0:0:0:1:3260"), rt.drain());
        tree.detach(rt);
        assertEquals(List.of("disable 0:0:0:0:0:0:0:1:3260"), rt.drain(), "the runtime's listeners stop with it");
        t3.enableIser("[::1]", 3260, false);
        assertEquals(List.of(), rt.drain(), "no runtime attached");
    }
}
