package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.impl.MadLayer;
import org.jrdma.ib.mad.impl.SaClientImpl;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.NodeRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SA of the SM and the SA client, on a managed hw-loopback fabric swept by the SM. */
class SubnetAdministratorTest {
    static final int T = 5000;
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    final MadLayer mad = ib.mad();
    final SaClientImpl sa = ib.sa();
    List<IbDevice> devs;
    SubnetManager sm;

    /** {@code n} one-port devices, swept by the SM on the first of them. */
    void fabricOf(int n) throws InterruptedException {
        devs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            devs.add(ib.add(1));
        }
        sm = ib.sweptBy(devs.get(0), 0);
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    static SaException failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return (SaException) e.getCause();
        }
        throw new AssertionError("the query succeeded");
    }

    @Test
    void nodeRecordTableOfTenPortsComesInRmppSegments() throws Exception {
        fabricOf(10);
        IbDevice me = devs.get(5);
        List<NodeRecord> nrs = get(sa.nodeRecords(me, 1, null, 0, T));
        assertEquals(10, nrs.size());
        Set<Long> guids = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            NodeRecord r = nrs.get(i);
            assertEquals(i + 1, r.lid, "LID order");
            assertEquals(devs.get(i).nodeGuid(), r.nodeGuid);
            assertEquals(devs.get(i).queryGid(1, 0).interfaceId(), r.portGuid);
            assertEquals(1, r.nodeType);
            assertEquals(1, r.localPortNum);
            assertTrue(r.nodeDescription.endsWith(" " + devs.get(i).name()), r.nodeDescription);
            guids.add(r.portGuid);
        }
        assertEquals(10, guids.size());
        Thread.sleep(100);
        Map<String, Long> smc = mad.counters(devs.get(0), 1);
        Map<String, Long> me1 = mad.counters(me, 1);
        assertEquals(6, smc.get("rmpp_segs_sent"), "10 x 112 bytes in 200-byte segments");
        assertEquals(6, me1.get("rmpp_segs_rcvd"));
        assertEquals(1, me1.get("rmpp_reassembled"));
        assertEquals(1, smc.get("sa_requests"));
        assertEquals(0, smc.get("sa_errors"));

        // with a component mask: the record of one LID
        NodeRecord q = new NodeRecord();
        q.lid = 7;
        List<NodeRecord> one = get(sa.nodeRecords(me, 1, q, NodeRecord.LID, T));
        assertEquals(1, one.size());
        assertEquals(devs.get(6).nodeGuid(), one.get(0).nodeGuid);
    }

    @Test
    void pathRecordBetweenTwoPorts() throws Exception {
        fabricOf(3);
        IbDevice a = devs.get(1);
        IbDevice b = devs.get(2);
        Gid sgid = a.queryGid(1, 0);
        Gid dgid = b.queryGid(1, 0);
        PathRecord pr = get(sa.pathRecordGet(a, 1, sgid, dgid, T));
        assertEquals(sgid, pr.sgid);
        assertEquals(dgid, pr.dgid);
        assertEquals(a.queryPort(1).lid(), pr.slid);
        assertEquals(b.queryPort(1).lid(), pr.dlid);
        assertEquals(0xffff, pr.pkey);
        assertEquals(0, pr.sl);
        assertEquals(PathRecord.SELECTOR_EQ, pr.mtuSelector);
        assertEquals(5, pr.mtu, "IB_MTU_4096");
        assertEquals(PathRecord.SELECTOR_EQ, pr.rateSelector);
        assertEquals(16, pr.rate, "IB_RATE_100_GBPS: 4X EDR");
        assertEquals(0x12, pr.packetLifeTime, "OpenSM's default subnet timeout");
        assertTrue(pr.reversible);
        assertEquals(0, pr.numbPath, "OpenSM answers num_path 0x80: only the reversible bit");
        assertEquals(0, pr.hopLimit);

        // by LIDs, and the loopback path to oneself has PacketLifeTime 0
        PathRecord q = new PathRecord();
        q.slid = pr.slid;
        q.dlid = pr.slid;
        List<PathRecord> self = get(sa.pathRecords(a, 1, q, PathRecord.SLID | PathRecord.DLID, T));
        assertEquals(1, self.size());
        assertEquals(0, self.get(0).packetLifeTime);
        // MTU selector: less than 4096 gives 2048
        q = new PathRecord();
        q.sgid = sgid;
        q.dgid = dgid;
        q.mtuSelector = PathRecord.SELECTOR_LT;
        q.mtu = 5;
        List<PathRecord> lt = get(sa.pathRecords(a, 1, q, PathRecord.SGID | PathRecord.DGID
                | PathRecord.MTU_SELECTOR | PathRecord.MTU, T));
        assertEquals(4, lt.get(0).mtu);
        // no source or destination: every pair (3 x 3 = 9 records, 576 bytes, 3 segments)
        assertEquals(9, get(sa.pathRecords(a, 1, null, 0, T)).size());
    }

    @Test
    void multicastJoinCreatesTheGroupAndLeaveRemovesIt() throws Exception {
        fabricOf(3);
        IbDevice a = devs.get(1);
        IbDevice b = devs.get(2);
        MCMemberRecord want = new MCMemberRecord();
        want.qkey = 0x1234;
        want.pkey = 0xffff;
        want.joinState = MCMemberRecord.FULLMEMBER_JOIN;
        want.mtuSelector = PathRecord.SELECTOR_EQ;
        want.mtu = 4;
        long mask = MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE | MCMemberRecord.QKEY | MCMemberRecord.TRAFFIC_CLASS
                | MCMemberRecord.PKEY | MCMemberRecord.FLOW_LABEL | MCMemberRecord.SL | MCMemberRecord.MTU_SELECTOR
                | MCMemberRecord.MTU;
        BlockingQueue<Integer> st = new LinkedBlockingQueue<>();
        Multicast ma = sa.joinMulticast(a, 1, want, mask, (s, m) -> st.add(s));
        assertEquals(0, st.poll(10, TimeUnit.SECONDS));
        MCMemberRecord g = ma.rec();
        assertEquals(Gid.parse("ff12:a01b:fe80::"), g.mgid, "OpenSM's build_new_mgid, link-local scope, count 0");
        assertEquals(0xc000, g.mlid);
        assertEquals(0x1234, g.qkey);
        assertEquals(4, g.mtu);
        assertEquals(16, g.rate);
        assertEquals(2, g.scope);
        assertEquals(a.queryGid(1, 0), g.portGid);
        assertEquals(MCMemberRecord.FULLMEMBER_JOIN, g.joinState);

        // b joins the existing group by its MGID (no create components needed)
        MCMemberRecord wb = new MCMemberRecord();
        wb.mgid = g.mgid;
        wb.joinState = MCMemberRecord.FULLMEMBER_JOIN;
        Multicast mb = sa.joinMulticast(b, 1, wb, MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE, (s, m) -> st.add(s));
        assertEquals(0, st.poll(10, TimeUnit.SECONDS));
        assertEquals(0xc000, mb.rec().mlid);
        assertEquals(0x1234, mb.rec().qkey);
        assertEquals(2, sm.sa().members(g.mgid).size());
        // a second new group gets the next MLID and MGID
        Multicast mc2 = sa.joinMulticast(b, 1, want, mask, (s, m) -> st.add(s));
        assertEquals(0, st.poll(10, TimeUnit.SECONDS));
        assertEquals(0xc001, mc2.rec().mlid);
        assertEquals(Gid.parse("ff12:a01b:fe80:0:0:100::"), mc2.rec().mgid, "uniq_count 1 as OpenSM copies it on x86");
        // a join with another Q_Key is refused
        MCMemberRecord bad = wb.copy();
        bad.qkey = 0x999;
        sa.joinMulticast(devs.get(0), 1, bad, MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE | MCMemberRecord.QKEY,
                (s, m) -> st.add(s));
        assertEquals(-22, st.poll(10, TimeUnit.SECONDS), "-EINVAL: the SA said ERR_REQ_INVALID");

        List<MCMemberRecord> all = get(sa.mcMemberRecords(a, 1, null, 0, T));
        assertEquals(3, all.size(), "a and b in the first group, b in the second");

        MCMemberRecord left = get(sa.leave(ma));
        assertEquals(g.mgid, left.mgid);
        assertEquals(1, sm.sa().members(g.mgid).size());
        // leaving twice: refused by the client (multicast.c's member is gone), the SA is not asked
        SaException e = failure(sa.leave(ma));
        assertEquals(-22, e.errno());
        assertEquals(-1, e.madStatus());
        mb.close();
        Thread.sleep(200);
        assertEquals(1, sm.sa().groups().size(), "the empty group is gone");
        assertEquals(0xc001, sm.sa().groups().get(0).mlid);
    }

    @Test
    void malformedQueriesGetSaStatusesAndAreCounted() throws Exception {
        fabricOf(2);
        IbDevice a = devs.get(1);
        Map<String, Long> before = mad.counters(devs.get(0), 1);
        // Get of a NodeRecord without a mask: two match
        assertEquals(SaException.ERR_TOO_MANY_RECORDS, failure(sa.query(a, 1, Mad.METHOD_GET, NodeRecord.ATTR_ID, 0, 0,
                null, T)).madStatus());
        // Get of a LID nobody has
        NodeRecord q = new NodeRecord();
        q.lid = 99;
        assertEquals(SaException.ERR_NO_RECORDS, failure(sa.query(a, 1, Mad.METHOD_GET, NodeRecord.ATTR_ID, 0,
                NodeRecord.LID, q.toWire(), T)).madStatus());
        // GetTable of it: success, no records
        assertEquals(0, get(sa.nodeRecords(a, 1, q, NodeRecord.LID, T)).size());
        // PathRecord to an unknown GID
        SaException e = failure(sa.pathRecordGet(a, 1, a.queryGid(1, 0), Gid.of(Gid.DEFAULT_SUBNET_PREFIX, 42), T));
        assertEquals(SaException.ERR_REQ_INVALID_GID, e.madStatus());
        assertEquals(-22, e.errno());
        // an invalid MTU under a selector; half a ServiceID
        PathRecord pr = new PathRecord();
        pr.mtu = 9;
        assertEquals(SaException.ERR_REQ_INVALID, failure(sa.pathRecords(a, 1, pr, PathRecord.MTU | PathRecord.MTU_SELECTOR,
                T)).madStatus());
        assertEquals(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS, failure(sa.pathRecords(a, 1, pr, 1, T)).madStatus());
        // creating a group without the required components
        MCMemberRecord mr = new MCMemberRecord();
        mr.portGid = a.queryGid(1, 0);
        mr.joinState = 1;
        assertEquals(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS, failure(sa.query(a, 1, Mad.METHOD_SET,
                MCMemberRecord.ATTR_ID, 0, MCMemberRecord.MGID | MCMemberRecord.PORT_GID | MCMemberRecord.JOIN_STATE,
                mr.toWire(), T)).madStatus());
        // an attribute the SA does not serve, and a method NodeRecord has not
        assertEquals(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, failure(sa.query(a, 1, Mad.METHOD_GET, 0x0099, 0, 0, null, T))
                .madStatus());
        assertEquals(Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB, failure(sa.query(a, 1, Mad.METHOD_DELETE, NodeRecord.ATTR_ID,
                0, 0, null, T)).madStatus());
        Map<String, Long> after = mad.counters(devs.get(0), 1);
        assertEquals(9, after.get("sa_requests") - before.get("sa_requests"));
        assertEquals(8, after.get("sa_errors") - before.get("sa_errors"), "all but the empty GetTable");
    }

    @Test
    void noSmMeansEagainAndCloseLeavesNoThreads() throws Exception {
        IbDevice a = ib.add(1);
        assertEquals(-11, failure(sa.nodeRecords(a, 1, null, 0, T)).errno(), "-EAGAIN: no SM LID yet");
        fabricOf(2);
        assertEquals(3, get(sa.nodeRecords(a, 1, null, 0, T)).size());
        sa.close();
        ib.stopSm();
        mad.close();
        long n = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && (t.getName().equals("ib-sm") || t.getName().equals("ib-mad"))).count();
        assertEquals(0, n);
    }
}
