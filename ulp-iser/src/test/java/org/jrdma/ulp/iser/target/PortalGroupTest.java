package org.jrdma.ulp.iser.target;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;
import org.jrdma.ulp.iser.scsi.ScsiResult;
import org.jrdma.ulp.iser.scsi.ScsiTask;
import org.jrdma.ulp.iser.target.PortalGroup.ChapCredentials;
import org.jrdma.ulp.iser.target.TargetDirectory.SendTarget;
import org.junit.jupiter.api.Test;

/** What the runtime reads at login: portal groups by portal, ACL/demo mode, CHAP, LUNs, SendTargets. */
class PortalGroupTest {
    static final String T1 = "iqn.2026-12.org.jrdma:t1";
    static final String I1 = "iqn.2026-12.org.jrdma:i1";
    static final String ANY = "iqn.2004-10.com.ubuntu:01:guest";
    static final InetSocketAddress P1 = new InetSocketAddress("192.0.2.1", 3260);

    private final TargetTree tree = new TargetTree();

    private Tpg target(String wwn, String ip, int port) throws TargetConfigException {
        Tpg tpg = tree.createTarget(wwn).createTpg(null);
        tpg.enable(true);
        tpg.createPortal(ip, port);
        tpg.enableIser(ip, port, true);
        return tpg;
    }

    /** REPORT LUNS through the executor the runtime gets: the LUN numbers the initiator sees. */
    static List<Integer> reportLuns(ScsiExecutor luns) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) 0xa0;
        cdb[9] = (byte) 0xff;
        ByteBuffer in = ByteBuffer.allocate(255);
        ScsiResult r = luns.execute(new ScsiTask(0, cdb, 255, ByteBuffer.allocate(0), in));
        assertEquals(ScsiResult.GOOD, r.status());
        int n = in.getInt(0) / 8;
        List<Integer> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add((int) (in.getLong(8 + 8 * i) >>> 48) & 0x3fff);
        }
        return out;
    }

    /** WRITE(10) of one block at LBA 0 to {@code lun}: the status and sense key. */
    static int[] write(ScsiExecutor luns, int lun) {
        byte[] cdb = new byte[16];
        cdb[0] = 0x2a;
        cdb[8] = 1;
        ScsiResult r = luns.execute(new ScsiTask((long) lun << 48, cdb, 512, ByteBuffer.allocate(512), null));
        byte[] sense = r.sense();
        return new int[] {r.status(), sense.length > 2 ? sense[2] & 0x0f : -1, sense.length > 12 ? sense[12] & 0xff : -1};
    }

    @Test
    void portalGroupOnlyThroughAnEnabledTpgWithAnIserPortal() throws Exception {
        Tpg tpg = target(T1, "192.0.2.1", 3260);
        assertEquals(Optional.of(tpg), tree.portalGroup(T1, P1));
        assertEquals(Optional.of(tpg), tree.portalGroup("IQN.2026-12.ORG.JRDMA:T1", P1), "names compare lower-cased");
        assertEquals(Optional.empty(), tree.portalGroup(T1, new InetSocketAddress("192.0.2.1", 3261)));
        assertEquals(Optional.empty(), tree.portalGroup(T1, new InetSocketAddress("192.0.2.2", 3260)));
        assertEquals(Optional.empty(), tree.portalGroup("iqn.2026-12.org.jrdma:none", P1));
        assertEquals(Optional.empty(), tree.portalGroup(null, P1));
        tpg.enable(false);
        assertEquals(Optional.empty(), tree.portalGroup(T1, P1), "disabled TPG");
        tpg.enable(true);
        tpg.enableIser("192.0.2.1", 3260, false);
        assertEquals(Optional.empty(), tree.portalGroup(T1, P1), "no iSER on the portal");
        tpg.createPortal("0.0.0.0", 3262);
        tpg.enableIser("0.0.0.0", 3262, true);
        assertEquals(Optional.of(tpg), tree.portalGroup(T1, new InetSocketAddress("10.1.2.3", 3262)), "wildcard");
    }

    @Test
    void demoModeAclsChapAndWriteProtect() throws Exception {
        Tpg tpg = target(T1, "192.0.2.1", 3260);
        StorageObject a = tree.createRamdisk("a", 1 << 20);
        StorageObject b = tree.createRamdisk("b", 1 << 20);
        tpg.createLun(a, 0, false, null);
        tpg.createLun(b, 3, true, null);
        assertFalse(tpg.allows(ANY), "LIO's default: generate_node_acls=0");
        assertTrue(tpg.visibleLuns(ANY).isEmpty());
        assertEquals(List.of(0), reportLuns(tpg.luns(ANY)), "an empty table reports LUN 0 (SPC-4, as LIO)");

        tpg.setAttribute("generate_node_acls", 1);
        assertTrue(tpg.allows(ANY));
        assertTrue(tpg.writeProtected(ANY), "LIO's default demo_mode_write_protect=1");
        ScsiExecutor demo = tpg.luns(ANY);
        assertEquals(List.of(0, 3), reportLuns(demo));
        assertArrayEquals(new int[] {ScsiResult.CHECK_CONDITION, 0x07, 0x27}, write(demo, 0), "DATA PROTECT");
        tpg.setAttribute("demo_mode_write_protect", 0);
        assertFalse(tpg.writeProtected(ANY));
        demo = tpg.luns(ANY);
        assertArrayEquals(new int[] {ScsiResult.GOOD, -1, -1}, write(demo, 0));
        assertArrayEquals(new int[] {ScsiResult.CHECK_CONDITION, 0x07, 0x27}, write(demo, 3), "read-only LUN");

        NodeAcl acl = tpg.createAcl(I1, null);
        tpg.createMappedLun(acl, 0, 3, false);
        tpg.createMappedLun(acl, 1, 0, true);
        ScsiExecutor mine = tpg.luns(I1);
        assertEquals(List.of(0, 1), reportLuns(mine), "its mapped LUNs, numbered its way");
        assertArrayEquals(new int[] {ScsiResult.CHECK_CONDITION, 0x07, 0x27}, write(mine, 1), "write_protect mapping");
        assertArrayEquals(new int[] {ScsiResult.CHECK_CONDITION, 0x07, 0x27}, write(mine, 0), "LUN 3 is read-only");
        assertFalse(tpg.writeProtected(I1));
        tpg.setAttribute("prod_mode_write_protect", 1);
        assertTrue(tpg.writeProtected(I1));
        assertFalse(tpg.writeProtected(ANY), "demo mode has its own switch");

        assertEquals(Optional.empty(), tpg.chap(I1), "authentication=0");
        tpg.setAttribute("authentication", 1);
        assertEquals(Optional.of(new ChapCredentials("", "", null, null)), tpg.chap(I1),
                "unset secrets: a CHAP exchange that fails");
        acl.auth().set(ChapAuth.Param.USERID, "alice");
        acl.auth().set(ChapAuth.Param.PASSWORD, "alicepass12");
        tpg.auth().set(ChapAuth.Param.USERID, "demo");
        tpg.auth().set(ChapAuth.Param.PASSWORD, "demopass1234");
        tpg.auth().set(ChapAuth.Param.MUTUAL_USERID, "tgt");
        tpg.auth().set(ChapAuth.Param.MUTUAL_PASSWORD, "tgtpass12345");
        assertEquals(Optional.of(new ChapCredentials("alice", "alicepass12", null, null)), tpg.chap(I1));
        assertEquals(Optional.of(new ChapCredentials("demo", "demopass1234", "tgt", "tgtpass12345")), tpg.chap(ANY),
                "demo mode: the TPG's secrets");
        tpg.setAttribute("generate_node_acls", 0);
        assertFalse(tpg.allows(ANY));
        assertTrue(tpg.allows(I1.toUpperCase()), "iSCSI names compare lower-cased");
    }

    @Test
    void sendTargetsListsIserPortalsTheInitiatorMayUse() throws Exception {
        Tpg t1 = target(T1, "192.0.2.1", 3260);
        t1.setAttribute("generate_node_acls", 1);
        t1.createPortal("0.0.0.0", 3261);
        t1.enableIser("0.0.0.0", 3261, true);
        t1.createPortal("192.0.2.7", 3260); // TCP only in LIO: not in an iSER discovery answer
        Tpg t2 = target("iqn.2026-12.org.jrdma:t2", "[::1]", 3260);
        t2.createAcl(I1, null);
        Tpg off = target("iqn.2026-12.org.jrdma:off", "192.0.2.1", 3260);
        off.setAttribute("generate_node_acls", 1);
        off.enable(false);

        assertEquals(List.of(new SendTarget(T1, List.of("192.0.2.1:3260,1", "192.0.2.1:3261,1")),
                        new SendTarget("iqn.2026-12.org.jrdma:t2", List.of("[::1]:3260,1"))),
                tree.sendTargets(I1, P1), "the wildcard portal answered with the address the connection used");
        assertEquals(List.of(new SendTarget(T1, List.of("192.0.2.1:3260,1", "192.0.2.1:3261,1"))),
                tree.sendTargets(ANY, P1), "no ACL on t2");
        t1.setAttribute("demo_mode_discovery", 0);
        assertEquals(List.of(), tree.sendTargets(ANY, P1), "demo_mode_discovery=0 hides demo-mode targets");
        off.enable(true);
        assertEquals(List.of(new SendTarget("iqn.2026-12.org.jrdma:off", List.of("192.0.2.1:3260,1"))),
                tree.sendTargets(ANY, new InetSocketAddress("192.0.2.1", 3260)));
        // over an IB port's GID the wildcard portal is answered as inet_ntop writes it (as iscsiadm prints it)
        t1.setAttribute("demo_mode_discovery", 1);
        List<SendTarget> overGid = tree.sendTargets(ANY,
                new InetSocketAddress(java.net.InetAddress.getByName("fe80:0:0:0:6a72:646d:0:101"), 3261));
        assertTrue(overGid.stream().anyMatch(t -> t.targetName().equals(T1)
                && t.targetAddresses().contains("[fe80::6a72:646d:0:101]:3261,1")), overGid.toString());
    }

    @Test
    void lunCountersAddUpOverLogins() throws Exception {
        Tpg tpg = target(T1, "192.0.2.1", 3260);
        tpg.setAttribute("generate_node_acls", 1);
        tpg.setAttribute("demo_mode_write_protect", 0);
        StorageObject a = tree.createRamdisk("a", 1 << 20);
        tpg.createLun(a, 0, false, null);
        assertTrue(tpg.statistics(0).isEmpty(), "no session yet");
        write(tpg.luns(ANY), 0);
        write(tpg.luns(I1), 0);
        assertEquals(2, tpg.statistics(0).orElseThrow().commands(), "two logins, one LUN's counters");
        assertEquals(1024, tpg.statistics(0).orElseThrow().writeBytes());
        tpg.deleteLun(0);
        tpg.createLun(a, 0, false, null);
        assertTrue(tpg.statistics(0).isEmpty(), "a new LUN starts again");
    }
}
