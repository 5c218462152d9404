package org.jrdma.ulp.iser.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.ulp.iser.target.PortalGroup;
import org.jrdma.ulp.iser.target.RecordingPortalControl;
import org.jrdma.ulp.iser.target.TargetTree;
import org.jrdma.ulp.iser.target.Tpg;
import org.jrdma.ulp.iser.target.TpgAttribute;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** targetcli's commands: their messages, errors and exit status, and what they leave in the tree. */
class TargetcliTest {
    static final String T1 = "iqn.2026-12.org.jrdma:t1";
    static final String TPG = "/iscsi/" + T1 + "/tpg1";

    private final TargetTree tree = new TargetTree();
    private final RecordingPortalControl runtime = new RecordingPortalControl();
    private final Tcli tcli = new Tcli(tree);

    TargetcliTest() {
        tree.attach(runtime);
    }

    /** Issue 14's interop line, word for word: the target then serves 192.0.2.1:3260 to any initiator. */
    @Test
    void issue14InteropLine() throws Exception {
        assertEquals("Created ramdisk rd0 with size 64M.\n", tcli.ok("/backstores/ramdisk create rd0 64M"));
        assertEquals("Created target " + T1 + ".\nCreated TPG 1.\nGlobal pref auto_add_default_portal=true\n"
                + "Created default portal listening on all IPs (0.0.0.0), port 3260.\n", tcli.ok("/iscsi create " + T1));
        assertEquals("Created LUN 0.\n", tcli.ok(TPG + "/luns create /backstores/ramdisk/rd0"));
        assertEquals("Using default IP port 3260\nCreated network portal 192.0.2.1:3260.\n",
                tcli.ok(TPG + "/portals create 192.0.2.1 3260"));
        assertEquals(List.of(), runtime.drain(), "no iSER yet, so no listener");
        assertEquals("iSER enable now: True\n", tcli.ok(TPG + "/portals/192.0.2.1:3260 enable_iser true"));
        assertEquals(List.of("enable 192.0.2.1:3260"), runtime.drain());

        InetSocketAddress portal = new InetSocketAddress("192.0.2.1", 3260);
        PortalGroup pg = tree.portalGroup(T1, portal).orElseThrow();
        assertEquals(1, pg.tag());
        assertTrue(pg.allows("iqn.2004-10.com.ubuntu:01:guest"), "demo mode");
        assertEquals(Optional.empty(), pg.chap("iqn.2004-10.com.ubuntu:01:guest"));
        assertFalse(pg.writeProtected("iqn.2004-10.com.ubuntu:01:guest"));
        assertEquals(List.of(0), List.copyOf(((Tpg) pg).visibleLuns("iqn.2004-10.com.ubuntu:01:guest").keySet()));
        assertEquals(Optional.empty(), tree.portalGroup(T1, new InetSocketAddress("192.0.2.9", 3260)),
                "0.0.0.0:3260 has no iSER");
        assertTrue(tcli.ok("ls").contains("o- 192.0.2.1:3260 "));
    }

    /** The capture's LIO setup, command for command: the same messages and the same `ls` as targetcli-fb 2.1.53. */
    @Test
    void sameOutputAsTargetcliInTheCapture() throws IOException {
        String iqn = "iqn.2003-01.org.linux-iscsi.rxepeer:iser";
        String tpg = "/iscsi/" + iqn + "/tpg1";
        StringBuilder out = new StringBuilder();
        for (String line : List.of("/backstores/ramdisk create name=rd0 size=64M", "/iscsi create " + iqn,
                tpg + "/luns create /backstores/ramdisk/rd0", tpg + "/portals delete 0.0.0.0 3260",
                tpg + " set attribute generate_node_acls=1 authentication=0 demo_mode_write_protect=0"
                        + " cache_dynamic_acls=1",
                tpg + "/portals create 192.0.2.11 3260", tpg + "/portals/192.0.2.11:3260 enable_iser true",
                "ls " + tpg)) {
            out.append(tcli.ok(line));
        }
        List<String> log = Files.readAllLines(TestVectors.path("iser/target-setup.log"));
        List<String> setup = log.subList(0, log.indexOf(log.stream().filter(l -> l.startsWith("link ")).findFirst()
                .orElseThrow()));
        assertEquals(String.join("\n", setup) + "\n", out.toString());

        List<String> status = Files.readAllLines(TestVectors.path("iser/target-status.txt"));
        List<String> absent = List.of("block", "pscsi", "loopback", "srpt", "vhost", "xen-pvscsi");
        List<String> tree = status.subList(0, status.indexOf("--- rdma_cm ids")).stream()
                .filter(l -> absent.stream().noneMatch(a -> l.matches("\\s*[| ]*o- " + a + " .*"))).toList();
        // without the fabrics after it, iscsi is the root's last child: no "|" margin below it
        int iscsi = tree.indexOf(tree.stream().filter(l -> l.startsWith("  o- iscsi ")).findFirst().orElseThrow());
        List<String> expected = new java.util.ArrayList<>(tree);
        for (int i = iscsi + 1; i < expected.size(); i++) {
            expected.set(i, "    " + expected.get(i).substring(4));
        }
        assertEquals(String.join("\n", expected) + "\n", tcli.ok("ls"), "targetcli ls but the fabrics jrdma lacks");
    }

    @Test
    void fileioBothFormsAndSizes(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("lun.img");
        assertEquals("Created fileio f0 with size 16777216\n", tcli.ok("/backstores/fileio create f0 " + f + " 16M"));
        assertEquals(16L << 20, Files.size(f));
        Path g = dir.resolve("g.img");
        Files.write(g, new byte[8192]);
        assertEquals(g + " exists, using its size (8192 bytes) instead\nCreated fileio f1 with size 8192\n",
                tcli.ok("/backstores/fileio create name=f1 file_or_dev=" + g + " size=1G"));
        tcli.fails("/backstores/fileio create f2 " + dir.resolve("new.img"),
                "Attempting to create file for new fileio backstore, need a size");
        tcli.fails("/backstores/fileio create f2 " + dir, "Path " + dir + " exists but is not a file");
        tcli.fails("/backstores/fileio create f3 " + f, "storage object for " + f + " already exists: f0");
        tcli.fails("/backstores/ramdisk create rd1 64Q", "Cannot interpret size, wrong format: 64Q");
        // found by IserArgsFuzzTest: less than a block escaped as IllegalArgumentException
        tcli.fails("/backstores/ramdisk create rd1 1", "ramdisk rd1: size 1 out of range");
        // and 32 PiB (the fuzzer's 32418509G) made a segment table that ran the JVM out of heap
        tcli.fails("/backstores/ramdisk create rd1 32768T", "ramdisk rd1: size 36028797018963968 out of range");
        tcli.ok("/backstores/ramdisk create rd1 512K");
        tcli.ok("/iscsi create " + T1);
        tcli.ok(TPG + "/luns create /backstores/fileio/f0 lun=lun3");
        String ls = tcli.ok("ls /backstores");
        assertTrue(ls.contains(" [Storage Objects: 2]\n"), ls);
        assertTrue(ls.contains("  | o- f0 ....") && ls.contains(". [" + f + " (16.0MiB) write-back activated]\n"), ls);
        assertTrue(ls.lines().allMatch(l -> l.length() == 132), "configshell's 132 columns");
        assertTrue(ls.contains("o- f1 ") && ls.contains(" [" + g + " (8.0KiB) write-back deactivated]"), ls);
        assertTrue(ls.contains(" [(512.0KiB) deactivated]"), ls);
        assertTrue(tcli.ok("ls " + TPG + "/luns").contains("o- lun3 ") , "lun=lun3");
        assertEquals("Deleted storage object f0.\n", tcli.ok("/backstores/fileio delete f0"));
        assertTrue(tcli.ok("ls " + TPG + "/luns").contains("[LUNs: 0]"), "its LUN went with it");
        tcli.fails("/backstores/fileio delete f0", "No storage object named f0.");
    }

    @Test
    void errorsAsTargetcliWordsThem() {
        tcli.ok("/backstores/ramdisk create rd0 64M");
        tcli.fails("/backstores/ramdisk create rd0 64M", "Storage object ramdisk/rd0 exists");
        tcli.fails("/iscsi/x ls", "No such path /iscsi/x");
        tcli.fails("ls /iscsi/x", "No such path /iscsi/x");
        tcli.fails("/iscsi create bob", "WWN not valid as: iqn, naa, eui");
        tcli.fails("/iscsi frob", "Command not found frob");
        tcli.fails("/backstores/ramdisk create rd9", "Missing required parameter size");
        tcli.fails("/backstores/ramdisk create", "Missing required parameters 'name', 'size'");
        tcli.fails("/backstores/ramdisk create rd9 1M colour=red", "Unexpected keyword parameter 'colour'.");
        tcli.fails("/backstores/ramdisk create rd9 1M false x y", "Got 5 positionnal parameters, expected at most 4.");
        tcli.fails("/backstores/ramdisk create rd9 name=rd9 size=1M", "Duplicate parameter name.");
        tcli.fails("/backstores/ramdisk delete", "Missing required parameter name");
        tcli.ok("/iscsi create " + T1);
        tcli.fails("/iscsi create " + T1, "This Target already exists in configFS");
        tcli.fails(TPG + "/luns create /backstores/ramdisk/nope", "storage object or path not valid");
        tcli.ok(TPG + "/luns create /backstores/ramdisk/rd0");
        tcli.fails(TPG + "/luns create /backstores/ramdisk/rd0", "lun for storage object ramdisk/rd0 already exists");
        tcli.fails(TPG + "/portals create 0.0.0.0", "This NetworkPortal already exists in configFS");
        tcli.fails(TPG + "/portals create 192.0.2.1 port", "Syntax error, 'port' is not a NUMBER.");
        tcli.fails(TPG + "/portals delete 192.0.2.1 3260", "This NetworkPortal does not exist in configFS");
        tcli.fails(TPG + "/portals/0.0.0.0:3260 enable_iser maybe", "Syntax error, 'maybe' is not true|false.");
        tcli.fails(TPG + " set attribute generate_node_acls=2",
                "Cannot set attribute generate_node_acls: [Errno 22] Invalid argument");
        tcli.fails(TPG + " set attribute bogus=1", "Unknown parameter bogus in group 'attribute'.");
        tcli.fails(TPG + " set attribute authentication=yes", "Not setting authentication! Syntax error, 'yes' is not a NUMBER.");
        tcli.fails(TPG + " set colour x=1", "Unknown configuration group: colour");
        tcli.fails(TPG + "/acls create bob", "WWN not valid as: iqn, naa, eui");
        tcli.fails("clearconfig", "As a precaution, confirm=True needs to be set");
        tcli.fails("/iscsi delete iqn.2026-12.org.jrdma:none", "This Target does not exist in configFS");
        runtime.refused.add(new InetSocketAddress("0.0.0.0", 3260));
        tcli.fails(TPG + "/portals/0.0.0.0:3260 enable_iser true", "Cannot change iser");
        tcli.ok(TPG + "/portals create 192.0.2.77");
        runtime.noDevice.add(new InetSocketAddress("192.0.2.77", 3260));
        tcli.fails(TPG + "/portals/192.0.2.77:3260 enable_iser true", "Cannot change iser"); // as LIO: no waiting
        assertTrue(tcli.ok("ls " + TPG + "/portals").contains("[OK]"), "not iSER after the failure");
        assertEquals("", tcli.run("/iscsi").out(), "a path alone (cd) does nothing");
    }

    @Test
    void aclsChapAndAttributes() {
        String init = "iqn.2026-12.org.jrdma:i1";
        tcli.ok("/backstores/ramdisk create rd0 1M");
        tcli.ok("/backstores/ramdisk create rd1 1M");
        tcli.ok("/iscsi create " + T1);
        tcli.ok(TPG + "/luns create /backstores/ramdisk/rd0");
        assertEquals("Created Node ACL for " + init + "\nCreated mapped LUN 0.\n", tcli.ok(TPG + "/acls create " + init));
        assertEquals("Created LUN 1.\nCreated LUN 1->1 mapping in node ACL " + init + "\n",
                tcli.ok(TPG + "/luns create /backstores/ramdisk/rd1"));
        assertEquals("Parameter generate_node_acls is now '0'.\nParameter authentication is now '1'.\n",
                tcli.ok(TPG + " set attribute generate_node_acls=0 authentication=1"));
        assertEquals("Parameter userid is now 'alice'.\nParameter password is now 'secret12'.\n",
                tcli.ok(TPG + "/acls/" + init + " set auth userid=alice password=secret12"));
        assertEquals("generate_node_acls=0\nauthentication=1\n",
                tcli.ok(TPG + " get attribute generate_node_acls authentication"));
        assertEquals("Deleted Mapped LUN 1.\n", tcli.ok(TPG + "/acls/" + init + " delete 1"));
        assertEquals("Created Mapped LUN 5.\n", tcli.ok(TPG + "/acls/" + init + " create 5 lun1 write_protect=true"));
        String ls = tcli.ok("ls " + TPG);
        assertTrue(ls.startsWith("o- tpg1 ") && ls.contains(" [no-gen-acls, auth per-acl]\n"), ls);
        assertTrue(ls.contains(" [1-way auth, Mapped LUNs: 2]\n"), ls);
        assertTrue(ls.contains("o- mapped_lun5 ") && ls.contains(" [lun1 ramdisk/rd1 (ro)]\n"), ls);

        PortalGroup pg = tree.read(() -> tree.targets().get(T1).tpgs().get(1));
        assertTrue(pg.allows(init));
        assertFalse(pg.allows("iqn.2026-12.org.jrdma:other"), "no ACL, no demo mode");
        assertEquals(Optional.of(new PortalGroup.ChapCredentials("alice", "secret12", null, null)), pg.chap(init));
        tcli.ok(TPG + "/acls/" + init + " set auth mutual_userid=tgt mutual_password=tsecret1");
        assertTrue(pg.chap(init).orElseThrow().mutual());
        assertEquals("tgt", pg.chap(init).orElseThrow().mutualUserid());
        assertTrue(tcli.ok("ls " + TPG + "/acls").contains(" [mutual auth, Mapped LUNs: 2]"));
        assertEquals("Deleted Node ACL " + init + ".\n", tcli.ok(TPG + "/acls delete " + init));
        assertFalse(pg.allows(init));

        // demo mode with TPG-level CHAP ("tpg-auth")
        tcli.ok(TPG + " set attribute generate_node_acls=1");
        tcli.ok(TPG + " set auth userid=tu password=tp");
        assertEquals(Optional.of(new PortalGroup.ChapCredentials("tu", "tp", null, null)), pg.chap("iqn.2026-12.x.y:z"));
        assertTrue(tcli.ok("ls " + TPG).contains(" [gen-acls, tpg-auth, 1-way auth]\n"));
        assertEquals("The TPGT has been disabled.\n", tcli.ok(TPG + " disable"));
        assertEquals("The TPGT is already disabled.\n", tcli.ok(TPG + " disable"));
        assertTrue(tcli.ok("ls " + TPG).contains(" [disabled]\n"));
        assertEquals("The TPGT has been enabled.\n", tcli.ok(TPG + " enable"));
        assertEquals(1, ((Tpg) pg).attribute(TpgAttribute.GENERATE_NODE_ACLS));
    }

    @Test
    void deleteAndClearconfigStopListeners() {
        tcli.ok("/iscsi create " + T1);
        tcli.ok(TPG + "/portals/0.0.0.0:3260 enable_iser true");
        tcli.ok("/iscsi create iqn.2026-12.org.jrdma:t2");
        tcli.ok("/iscsi/iqn.2026-12.org.jrdma:t2/tpg1/portals create 192.0.2.5 3261");
        tcli.ok("/iscsi/iqn.2026-12.org.jrdma:t2/tpg1/portals/192.0.2.5:3261 enable_iser true");
        assertEquals(List.of("enable 0.0.0.0:3260", "enable 192.0.2.5:3261"), runtime.drain());
        assertEquals("Deleted Target " + T1 + ".\n", tcli.ok("/iscsi delete " + T1));
        assertEquals(List.of("disable 0.0.0.0:3260"), runtime.drain());
        assertEquals("Created TPG 2.\nDefault portal not created, TPGs within a target cannot share ip:port.\n",
                tcli.ok("/iscsi/iqn.2026-12.org.jrdma:t2 create"));
        assertEquals("Deleted TPGT 2.\n", tcli.ok("/iscsi/iqn.2026-12.org.jrdma:t2 delete tpg2"));
        tcli.ok("/backstores/ramdisk create rd0 1M");
        assertEquals("All configuration cleared\n", tcli.ok("clearconfig confirm=True"));
        assertEquals(List.of("disable 192.0.2.5:3261"), runtime.drain());
        // dots fill each line to configshell's 132 columns (counts checked against target-status.txt's lines)
        String root = "o- / " + ".".repeat(121) + " [...]\n";
        String backstores = "  o- backstores " + ".".repeat(110) + " [...]\n";
        String iscsi = "  o- iscsi " + ".".repeat(108) + " [Targets: 0]\n";
        assertEquals(root + backstores + "  | o- fileio " + ".".repeat(97) + " [Storage Objects: 0]\n"
                + "  | o- ramdisk " + ".".repeat(96) + " [Storage Objects: 0]\n" + iscsi, tcli.ok("ls"));
        assertEquals(root + backstores + iscsi, tcli.ok("ls / 1"));
        assertEquals(root + backstores + iscsi, tcli.ok("ls depth=1"));
        assertEquals(tcli.ok("ls"), tcli.ok("ls / 0"));
        tcli.fails("ls / deep", "The tree depth must be a number.");
    }

    @Test
    void sessionsAsTargetcliListsThem() {
        assertEquals("(no open sessions)\n", tcli.ok("sessions"));
        tcli.ok("/backstores/ramdisk create rd0 1M");
        tcli.ok("/iscsi create " + T1);
        tcli.ok(TPG + "/luns create /backstores/ramdisk/rd0");
        String guest = "iqn.2004-10.com.ubuntu:01:guest";
        tcli.sessions = List.of(
                new org.jrdma.ulp.iser.target.SessionInfo(guest, null, true, 1, 0x23d000000L, List.of(), 0, 0, 0),
                new org.jrdma.ulp.iser.target.SessionInfo(guest, T1, false, 2, 0x23d000001L,
                        List.of(new InetSocketAddress("192.0.2.2", 51000)), 10, 4096, 0));
        assertEquals("alias: " + guest + "\tsid: 2 type: Normal session-state: LOGGED_IN\n", tcli.ok("sessions"),
                "discovery sessions are not listed, as in LIO");
        assertEquals("alias: " + guest + "\tsid: 2 type: Normal session-state: LOGGED_IN\n"
                + "    name: " + guest + "\n    mapped-lun: 0 backstore: ramdisk/rd0 mode: rw\n"
                + "    address: 192.0.2.2 (iSER)  cid: 0 connection-state: LOGGED_IN\n", tcli.ok("sessions detail 2"));
        tcli.fails("sessions detail 7", "no session found with sid 7");
        tcli.fails("sessions show", "action must be one of: list, detail");
        tcli.fails("sessions list x", "sid must be a number, 'x' given");
        tcli.fails("/iscsi sessions", "Command not found sessions");
    }
}
