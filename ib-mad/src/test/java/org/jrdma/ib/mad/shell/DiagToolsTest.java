package org.jrdma.ib.mad.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sm.SubnetManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ibstat, sminfo and saquery on a managed loopback fabric, output as infiniband-diags prints it. */
class DiagToolsTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    final IbCore core = ib.core();
    final MadLayer mad = ib.mad();
    final SaClientImpl sa = ib.sa();
    List<IbDevice> devs;
    SubnetManager sm;
    String err;

    /** Devices of these port counts, swept by the SM (priority 5) on the first. */
    void fabric(int... ports) throws InterruptedException {
        for (int p : ports) {
            ib.add(p);
        }
        devs = ib.devices();
        sm = ib.sweptBy(devs.get(0), 5);
    }

    String run(DiagTool t, int status, String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        assertEquals(status, t.run(out, args), () -> "status; stderr: " + t.stderr);
        err = t.stderr.toString();
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void ibstat() throws Exception {
        fabric(2, 1);
        IbDevice lo0 = devs.get(0);
        String port1 = String.format("\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 100\n"
                + "\t\tBase lid: 1\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0x%08x\n"
                + "\t\tPort GUID: 0x%016x\n\t\tLink layer: InfiniBand\n", lo0.queryPort(1).portCapFlags(),
                lo0.queryGid(1, 0).interfaceId());
        String head = String.format("CA '%s'\n\tCA type: \n\tNumber of ports: 2\n\tFirmware version: 1.0.0\n"
                + "\tHardware version: 1\n\tNode GUID: 0x%016x\n\tSystem image GUID: 0x%016x\n", lo0.name(),
                lo0.nodeGuid(), lo0.queryDevice().sysImageGuid());
        String out = run(new Ibstat(core), 0, lo0.name());
        assertTrue(out.startsWith(head + port1 + "\tPort 2:\n\t\tState: Active\n"), out);
        assertTrue((lo0.queryPort(1).portCapFlags() & 0x2) != 0, "IsSM in the capability mask");
        assertEquals(head, run(new Ibstat(core), 0, "-s", lo0.name()));
        assertEquals(String.format("CA: '%s'\n", lo0.name()) + port1.replace("\t\t", "").replace("\tPort", "Port"),
                run(new Ibstat(core), 0, lo0.name(), "1"));
        assertEquals(devs.get(0).name() + "\n" + devs.get(1).name() + "\n", run(new Ibstat(core), 0, "-l"));
        assertEquals(String.format("0x%016x\n0x%016x\n0x%016x\n", lo0.queryGid(1, 0).interfaceId(),
                lo0.queryGid(2, 0).interfaceId(), devs.get(1).queryGid(1, 0).interfaceId()),
                run(new Ibstat(core), 0, "-p"));
        assertEquals("", run(new Ibstat(core), 255, "nosuch"));
        assertTrue(err.matches("ibpanic: \\[\\d+\\] main: 'nosuch' IB device can't be found: Success\n"), err);
        assertEquals("", run(new Ibstat(core), 0, lo0.name(), "3"));
        assertTrue(err.contains("ca_stat: CA: '" + lo0.name() + "' has no port number 3 - max (2)\n"), err);
    }

    @Test
    void sminfo() throws Exception {
        fabric(1, 1);
        String out = run(new Sminfo(core, mad), 0, "-C", devs.get(1).name());
        String want = String.format("sminfo: sm lid 1 sm guid 0x%x, activity count %d priority 5 state 3 SMINFO_MASTER\n",
                devs.get(0).queryGid(1, 0).interfaceId(), sm.activityCount());
        assertEquals(want, out);
        ib.stopSm();
        assertEquals("sminfo: iberror: failed: query\n", run(new Sminfo(core, mad), 255, "-C", devs.get(1).name(),
                "-t", "100"));
    }

    @Test
    void saquery() throws Exception {
        fabric(1, 1);
        IbDevice b = devs.get(1);
        String out = run(new Saquery(core, sa), 0, "-C", b.name());
        String nr1 = String.format("NodeRecord dump:\n"
                + "\t\tlid.....................2\n"
                + "\t\treserved................0x0\n"
                + "\t\tbase_version............0x1\n"
                + "\t\tclass_version...........0x1\n"
                + "\t\tnode_type...............Channel Adapter\n"
                + "\t\tnum_ports...............1\n"
                + "\t\tsys_guid................0x%016x\n"
                + "\t\tnode_guid...............0x%016x\n"
                + "\t\tport_guid...............0x%016x\n"
                + "\t\tpartition_cap...........0x%X\n"
                + "\t\tdevice_id...............0x1\n"
                + "\t\trevision................0x1\n"
                + "\t\tport_num................1\n"
                + "\t\tvendor_id...............0x6A7264\n"
                + "\t\tNodeDescription.........%s\n", b.queryDevice().sysImageGuid(), b.nodeGuid(),
                b.queryGid(1, 0).interfaceId(), b.queryDevice().maxPkeys(), sm.ports().get(1).nodeDescription().length > 0
                        ? new String(sm.ports().get(1).nodeDescription(), StandardCharsets.US_ASCII).trim() : "");
        assertTrue(out.startsWith("NodeRecord dump:\n\t\tlid.....................1\n"), out);
        assertTrue(out.endsWith(nr1), out);
        assertEquals(nr1, run(new Saquery(core, sa), 0, "-C", b.name(), "NR", "2"));

        String pr = run(new Saquery(core, sa), 0, "-C", b.name(), "--src-to-dst", "2:1");
        assertEquals(String.format("PathRecord dump:\n"
                + "\t\tservice_id..............0x0000000000000000\n"
                + "\t\tdgid....................fe80::%s\n"
                + "\t\tsgid....................fe80::%s\n"
                + "\t\tdlid....................1\n"
                + "\t\tslid....................2\n"
                + "\t\thop_flow_raw............0x0\n"
                + "\t\ttclass..................0x0\n"
                + "\t\tnum_path_revers.........0x80\n"
                + "\t\tpkey....................0xFFFF\n"
                + "\t\tqos_class...............0x0\n"
                + "\t\tsl......................0x0\n"
                + "\t\tmtu.....................0x85\n"
                + "\t\trate....................0x90\n"
                + "\t\tpkt_life................0x92\n"
                + "\t\tpreference..............0x0\n"
                + "\t\tresv2...................0x000000000000\n", v6(devs.get(0)), v6(b)), pr);

        String d = run(new Saquery(core, sa), 0, "-C", b.name(), "-D");
        assertTrue(d.startsWith("   LID \"name\"\n================\n     1  \""), d);

        assertEquals("", run(new Saquery(core, sa), 5, "-C", b.name(), "-p", "--dgid", "fe80::99"));
        assertEquals("ERROR: Query result returned 0x0500,  SA(SA_ERR_REQ_INVALID_GID)\n", err);
        assertEquals("", run(new Saquery(core, sa), 0, "-C", b.name(), "-m"));
    }

    @Test
    void saqueryShowsTheGroupsAndTheirMembers() throws Exception {
        IbDevice[] bc = withAGroup(MCMemberRecord.NONMEMBER_JOIN);
        IbDevice b = bc[0];
        IbDevice c = bc[1];

        String member = "MCMemberRecord member dump:\n"
                + "\t\tMGID....................ff12:a01b:fe80::\n"
                + "\t\tMlid....................0xC000\n"
                + "\t\tPortGid.................fe80::%s\n"
                + "\t\tScopeState..............0x2%d\n"
                + "\t\tProxyJoin...............0x0\n"
                + "\t\tNodeDescription.........%s\n";
        assertEquals(String.format(member, v6(b), 1, name(b)) + String.format(member, v6(c), 2, name(c)),
                run(new Saquery(core, sa), 0, "-C", b.name(), "-m"));
        assertEquals("\t\tPortGid.................fe80::" + v6(b) + " (" + name(b) + ")\n"
                + "\t\tPortGid.................fe80::" + v6(c) + " (" + name(c) + ")\n",
                run(new Saquery(core, sa), 0, "-C", b.name(), "-m", "0xc000"));
        String g = run(new Saquery(core, sa), 0, "-C", b.name(), "-g");
        assertTrue(g.startsWith("MCMemberRecord group dump:\n"
                + "\t\tMGID....................ff12:a01b:fe80::\n"
                + "\t\tMlid....................0xC000\n"
                + "\t\tMtu.....................0x85\n"
                + "\t\tpkey....................0xFFFF\n"
                + "\t\tRate....................0x90\n"
                + "\t\tSL......................0x3\n"), g);
    }

    @Test
    void ibrouteDumpsTheSwitchMulticastTable() throws Exception {
        IbDevice[] bc = withAGroup(MCMemberRecord.FULLMEMBER_JOIN);
        IbDevice b = bc[0];
        IbDevice c = bc[1];
        sm.mcastSync();

        int lb = ib.loopback(b).linkOf(1);
        int lc = ib.loopback(c).linkOf(1);
        String sw = String.format("DR path slid 65535; dlid 65535; 0,1 guid 0x%016x (jrdma loopback switch):\n",
                ib.fabric().switchOf().guid());
        StringBuilder tens = new StringBuilder("            ");
        StringBuilder ones = new StringBuilder("     Ports: ");
        StringBuilder row = new StringBuilder("0xc000      ");
        for (int p = 0; p <= 63; p++) {
            tens.append(p % 10 == 0 ? (char) ('0' + p / 10) : ' ').append(' ');
            ones.append(p % 10).append(' ');
            row.append(p == lb || p == lc ? 'x' : ' ').append(' ');
        }
        assertEquals("Multicast mlids [0xc000-0xc000] of switch " + sw + tens + "\n" + ones + "\n MLid\n" + row
                + "\n1 valid mlids dumped \n", run(new Ibroute(core, mad), 0, "-C", b.name(), "-M", "-D", "0,1"));
        assertEquals("Multicast mlids [0xc000-0xc000] of switch " + sw + " MLid       Port Mask\n0xc000      "
                + String.format("%04x", (1 << lb) | (1 << lc)) + "000000000000\n1 valid mlids dumped \n",
                run(new Ibroute(core, mad), 0, "-C", b.name(), "-M", "-n", "-D", "0,1"));
        assertEquals("Unicast lids [0x0-0x0] of switch " + sw + "  Lid  Out   Destination\n       Port     Info \n"
                + "0 valid lids dumped \n", run(new Ibroute(core, mad), 0, "-C", b.name(), "-D", "0,1"));
        assertEquals("ibroute: iberror: failed: dump tables: not a switch\n",
                run(new Ibroute(core, mad), 255, "-C", b.name(), "-M", "1"));
        assertEquals("ibroute: iberror: failed: can't resolve destination port 0,1,2\n",
                run(new Ibroute(core, mad), 255, "-C", b.name(), "-M", "-D", "0,1,2"));
    }

    /**
     * Three single-port devices, the SM on the first; the second makes a group (full member, Q_Key 0x1234, SL 3: MLID
     * 0xC000), the third joins it with {@code joinState}. Returns the second and the third.
     */
    IbDevice[] withAGroup(int joinState) throws InterruptedException {
        fabric(1, 1, 1);
        IbDevice creator = devs.get(1);
        IbDevice other = devs.get(2);
        MCMemberRecord want = new MCMemberRecord();
        want.qkey = 0x1234;
        want.pkey = 0xffff;
        want.sl = 3;
        want.joinState = MCMemberRecord.FULLMEMBER_JOIN;
        java.util.concurrent.BlockingQueue<Integer> st = new java.util.concurrent.LinkedBlockingQueue<>();
        Multicast first = sa.joinMulticast(creator, 1, want, MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE
                | MCMemberRecord.QKEY | MCMemberRecord.TRAFFIC_CLASS | MCMemberRecord.PKEY | MCMemberRecord.FLOW_LABEL
                | MCMemberRecord.SL, (x, m) -> st.add(x));
        assertEquals(0, st.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        MCMemberRecord nm = new MCMemberRecord();
        nm.mgid = first.rec().mgid;
        nm.joinState = joinState;
        sa.joinMulticast(other, 1, nm, MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE, (x, m) -> st.add(x));
        assertEquals(0, st.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        return new IbDevice[] {creator, other};
    }

    /**
     * The common options as ibdiag_common.c takes them (DiagArgsFuzzTest found NumberFormatException escaping):
     * -P is strtoul (junk is port 0, the default), -t a whole number in 1..INT_MAX or IBEXIT.
     */
    @Test
    void commonOptionsAsIbdiagCommonParsesThem() throws Exception {
        fabric(1, 1);
        String bad = "sminfo: iberror: failed: Invalid timeout \"%s\".  Timeout requires a positive integer value < "
                + "2147483647.\n";
        for (String t : new String[] {"abc", "0", "-5", "12x", "4294967296"}) {
            assertEquals(String.format(bad, t), run(new Sminfo(core, mad), 255, "-t", t));
            assertEquals(String.format(bad.replace("sminfo", "ibroute"), t), run(new Ibroute(core, mad), 255, "-t", t, "1"));
            assertEquals(String.format(bad.replace("sminfo", "saquery"), t), run(new Saquery(core, sa), 255, "-t", t));
        }
        assertTrue(run(new Sminfo(core, mad), 0, "-P", "abc", "-t", "0x1f4").startsWith("sminfo: sm lid 1 "));
        assertTrue(run(new Saquery(core, sa), 0, "-P", "junk", "--slid", "x").contains("NodeRecord dump:"));
        assertEquals("ibroute: iberror: failed: Failed to open 'null' port '7'\n", run(new Ibroute(core, mad), 255,
                "-P", "7x", "1", "zz"));
    }

    /** The node description the SA has for {@code d} (rdma-ndd's "%h %d"). */
    String name(IbDevice d) throws Exception {
        for (org.jrdma.ib.mad.sa.NodeRecord n : sa.nodeRecords(d, 1, null, 0, 5000).get(10,
                java.util.concurrent.TimeUnit.SECONDS)) {
            if (n.portGuid == d.queryGid(1, 0).interfaceId()) {
                return n.nodeDescription;
            }
        }
        throw new AssertionError("no NodeRecord for " + d.name());
    }

    static String v6(IbDevice d) {
        long g = d.queryGid(1, 0).interfaceId();
        return String.format("%x:%x:%x:%x", g >>> 48, g >>> 32 & 0xffff, g >>> 16 & 0xffff, g & 0xffff);
    }
}
