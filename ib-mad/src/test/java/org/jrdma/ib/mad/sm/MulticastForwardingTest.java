package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.LoopbackSwitch;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortModify;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.PathRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SA joins and leaves program the switch's multicast forwarding table with SubnSet(MFT) SMPs, and UD multicast on
 * the managed loopback goes by that table: four single-port devices, the SM on the first. And the SA client's
 * {@code core/multicast.c}: local joins of one port share its SA membership; a port event ends them (-ENETRESET).
 */
class MulticastForwardingTest {
    static final int QKEY = 0x1234;
    static final int LEN = 200;
    static final int GRH = 40;
    static final int SLOT = GRH + LEN + 16;
    static final long CREATE = McMemberRecords.REQUIRED_MC_CREATE & ~MCMemberRecord.PORT_GID;
    static final long BY_MGID = MCMemberRecord.MGID | MCMemberRecord.JOIN_STATE;

    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IbDevice a;
    IbDevice b;
    IbDevice c;
    IbDevice d;
    SubnetManager sm;

    @BeforeEach
    void fabric() throws InterruptedException {
        a = ib.add(1);
        b = ib.add(1);
        c = ib.add(1);
        d = ib.add(1);
        sm = ib.sweptBy(a, 0);
        assertEquals(ib.fabric().switchOf().guid(), sm.switchGuid(), "the sweep found the switch");
    }

    static MCMemberRecord newGroup() {
        MCMemberRecord r = new MCMemberRecord();
        r.qkey = QKEY;
        r.pkey = 0xffff;
        r.joinState = MCMemberRecord.FULLMEMBER_JOIN;
        return r;
    }

    static MCMemberRecord member(Gid mgid, int joinState) {
        MCMemberRecord r = new MCMemberRecord();
        r.mgid = mgid;
        r.joinState = joinState;
        return r;
    }

    Multicast join(IbDevice dev, MCMemberRecord rec, long mask) throws InterruptedException {
        BlockingQueue<Integer> st = new LinkedBlockingQueue<>();
        Multicast m = ib.sa().joinMulticast(dev, 1, rec, mask, (s, mc) -> st.add(s));
        assertEquals(0, st.poll(10, TimeUnit.SECONDS), "join of " + dev.name());
        return m;
    }

    void leave(Multicast m) throws Exception {
        ib.sa().leave(m).get(10, TimeUnit.SECONDS);
    }

    /** The switch's table for {@code mlid} once the SM has caught up. */
    int[] mft(int mlid) throws InterruptedException {
        sm.mcastSync();
        return ib.fabric().switchOf().ports(mlid);
    }

    int link(IbDevice dev) {
        return ib.loopback(dev).linkOf(1);
    }

    int[] links(IbDevice... devs) {
        return Arrays.stream(devs).mapToInt(this::link).sorted().toArray();
    }

    @Test
    void joinsAndLeavesProgramTheSwitchWithExactlyTheReceivingMembers() throws Exception {
        assertArrayEquals(new int[0], mft(0xc000));
        long smps = sm.mftSmps();
        Multicast jb = join(b, newGroup(), CREATE);
        Gid mgid = jb.rec().mgid;
        assertEquals(0xc000, jb.rec().mlid);
        assertArrayEquals(links(b), mft(0xc000));
        assertTrue(sm.mftSmps() > smps, "SubnSet(MFT) sent for the new group");

        Multicast jc = join(c, member(mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID);
        assertArrayEquals(links(b, c), mft(0xc000));
        smps = sm.mftSmps();
        long set = ib.fabric().switchOf().smps();
        Multicast jd = join(d, member(mgid, MCMemberRecord.SENDONLY_NONMEMBER_JOIN), BY_MGID);
        assertArrayEquals(links(b, c), mft(0xc000), "a send-only member receives nothing");
        assertEquals(smps, sm.mftSmps(), "no change, no SMP");
        assertEquals(set, ib.fabric().switchOf().smps(), "the switch's SMA saw none either");
        assertEquals(3, sm.sa().members(mgid).size());

        leave(jb);
        assertArrayEquals(links(c), mft(0xc000));
        leave(jc); // the last full member: the group goes, d's send-only membership and the MLID with it
        assertArrayEquals(new int[0], mft(0xc000));
        assertEquals(0, sm.sa().groups().size());
        assertTrue(sm.sa().members(mgid).isEmpty(), "d went with the group");
        assertTrue(ib.sa().leave(jd).handle((r, e) -> e).get(10, TimeUnit.SECONDS) != null,
                "leaving a freed group is refused");

        Multicast again = join(d, newGroup(), CREATE);
        assertEquals(0xc000, again.rec().mlid, "the freed MLID is allocated again");
        assertArrayEquals(links(d), mft(0xc000));
    }

    @Test
    void aPortTheSweepNoLongerFindsLosesItsMemberships() throws Exception {
        Multicast jb = join(b, newGroup(), CREATE);
        join(c, member(jb.rec().mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID);
        join(d, member(jb.rec().mgid, MCMemberRecord.NONMEMBER_JOIN), BY_MGID);
        int linkC = link(c);
        assertArrayEquals(links(b, c, d), mft(0xc000));
        ib.unplug(c);
        sm.sweepNow();
        assertEquals(2, sm.sa().members(jb.rec().mgid).size(), "c's membership went with c");
        assertTrue(Arrays.stream(mft(0xc000)).noneMatch(l -> l == linkC));
        ib.unplug(b); // the last full member: the group goes, d's non-membership with it
        sm.sweepNow();
        assertEquals(0, sm.sa().groups().size());
        assertArrayEquals(new int[0], mft(0xc000));
    }

    @Test
    void theSwitchSmaAnswersMftGetAndRefusesABlockPastItsCapacity() throws Exception {
        Multicast jb = join(b, newGroup(), CREATE);
        join(c, member(jb.rec().mgid, MCMemberRecord.NONMEMBER_JOIN), BY_MGID);
        mft(0xc000);
        Mad r = sm.smp(SubnetManager.SWITCH, Mad.METHOD_GET, McastManager.ATTR_MFT, 0, null).get(10, TimeUnit.SECONDS);
        assertEquals(0x8000, r.status(), "D bit, status 0");
        int mask = (1 << link(b)) | (1 << link(c));
        assertEquals(mask, r.u16(64), "MLID 0xC000 (block 0, entry 0), ports 0..15: the members' links");
        assertEquals(0, r.u16(66), "MLID 0xC001: nobody");
        Mad ni = sm.smp(SubnetManager.SWITCH, Mad.METHOD_GET, SubnetManager.ATTR_NODE_INFO, 0, null)
                .get(10, TimeUnit.SECONDS);
        assertEquals(2, ni.u8(64 + 2), "NodeType switch");
        assertEquals(link(a), ni.u8(64 + 36), "LocalPortNum: the SM's port's link");
        long past = LoopbackSwitch.MFT_CAP / 32;
        Mad bad = sm.smp(SubnetManager.SWITCH, Mad.METHOD_SET, McastManager.ATTR_MFT, past, new byte[64])
                .get(10, TimeUnit.SECONDS);
        assertEquals(0x801c, bad.status(), "a block past MulticastFDBCap: invalid attribute modifier");
    }

    @Test
    void aUdSendToTheGroupReachesExactlyTheMembersAttachedQps() throws Exception {
        Multicast jb = join(b, newGroup(), CREATE);
        MCMemberRecord g = jb.rec();
        Multicast jc = join(c, member(g.mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID);
        mft(g.mlid);
        Ud rb = new Ud(b);
        Ud rc = new Ud(c);
        Ud rd = new Ud(d); // attached, but its port never joined: the switch sends it nothing
        Ud s = new Ud(a);
        for (Ud r : new Ud[] {rb, rc, rd}) {
            r.qp.attachMcast(g.mgid, g.mlid);
            r.postRecv(2);
        }
        AhAttr av = new AhAttr().dlid(g.mlid).portNum(1).sl(g.sl).grh(g.mgid, 0);
        byte[] one = s.send(av, 1);
        rb.expectCopy(one, g.mgid);
        rc.expectCopy(one, g.mgid);
        rd.expectNone();
        s.expectNone();

        leave(jc); // c's QP stays attached, but its port left the group
        mft(g.mlid);
        byte[] two = s.send(av, 2);
        rb.expectCopy(two, g.mgid);
        rc.expectNone();
        rd.expectNone();
    }

    /** The SA's status for a raw MCMemberRecord request from {@code dev} (0: success). */
    int status(IbDevice dev, int method, MCMemberRecord rec, long mask) throws Exception {
        try {
            ib.sa().query(dev, 1, method, MCMemberRecord.ATTR_ID, 0, mask, rec.toWire(), 5000).get(10, TimeUnit.SECONDS);
            return 0;
        } catch (java.util.concurrent.ExecutionException e) {
            return ((org.jrdma.ib.mad.sa.SaException) e.getCause()).madStatus();
        }
    }

    MCMemberRecord of(IbDevice dev, MCMemberRecord r) {
        r.portGid = dev.queryGid(1, 0);
        return r;
    }

    @Test
    void joinAndLeaveParametersAreCheckedAsOpenSmDoes() throws Exception {
        final int set = Mad.METHOD_SET;
        final int del = Mad.METHOD_DELETE;
        final long join = BY_MGID | MCMemberRecord.PORT_GID;
        MCMemberRecord create = of(b, newGroup());
        assertEquals(0x0600, status(b, set, create, CREATE & ~MCMemberRecord.JOIN_STATE), "no JoinState in the mask");
        assertEquals(0x0600, status(b, set, create, join), "a new group without the create components");
        MCMemberRecord nonFull = of(b, newGroup());
        nonFull.joinState = MCMemberRecord.NONMEMBER_JOIN;
        assertEquals(0x0200, status(b, set, nonFull, CREATE | MCMemberRecord.PORT_GID), "only a full member creates");
        MCMemberRecord saOwn = of(b, newGroup());
        saOwn.mgid = Gid.parse("ff12:a01b:fe80::77");
        assertEquals(0x0200, status(b, set, saOwn, CREATE | MCMemberRecord.PORT_GID), "0xA01B link-local is the SA's");
        saOwn.mgid = Gid.parse("fe12:4a52::1");
        assertEquals(0x0200, status(b, set, saOwn, CREATE | MCMemberRecord.PORT_GID), "not a multicast GID");
        MCMemberRecord tooBig = of(b, newGroup());
        tooBig.mtuSelector = 0; // greater than 4096: no port can
        tooBig.mtu = 5;
        assertEquals(0x0200, status(b, set, tooBig, CREATE | MCMemberRecord.PORT_GID | MCMemberRecord.MTU
                | MCMemberRecord.MTU_SELECTOR));
        MCMemberRecord alien = newGroup();
        alien.portGid = Gid.of(0xfec0_0000_0000_0000L, b.queryGid(1, 0).interfaceId());
        assertEquals(0x0500, status(b, set, alien, CREATE | MCMemberRecord.PORT_GID), "another subnet's PortGID");
        MCMemberRecord stranger = newGroup();
        stranger.portGid = Gid.of(Gid.DEFAULT_SUBNET_PREFIX, 0x42);
        assertEquals(0x0200, status(b, set, stranger, CREATE | MCMemberRecord.PORT_GID), "a port the SM does not know");

        Multicast jb = join(b, newGroup(), CREATE);
        MCMemberRecord g = jb.rec();
        assertEquals(5, g.mtu, "the port's 4096");
        MCMemberRecord w = of(c, member(g.mgid, MCMemberRecord.FULLMEMBER_JOIN));
        w.qkey = QKEY + 1;
        assertEquals(0x0200, status(c, set, w, join | MCMemberRecord.QKEY), "another Q_Key");
        w.qkey = QKEY;
        w.sl = 1;
        assertEquals(0x0200, status(c, set, w, join | MCMemberRecord.SL), "another SL");
        w.sl = 0;
        w.mtuSelector = PathRecord.SELECTOR_LT;
        w.mtu = 5;
        assertEquals(0x0200, status(c, set, w, join | MCMemberRecord.MTU_SELECTOR | MCMemberRecord.MTU),
                "MTU less than 4096 wanted, the group has 4096");
        w.mtuSelector = PathRecord.SELECTOR_GT;
        w.mtu = 4;
        w.rateSelector = PathRecord.SELECTOR_EQ;
        w.rate = g.rate;
        assertEquals(0, status(c, set, w, join | MCMemberRecord.MTU_SELECTOR | MCMemberRecord.MTU
                | MCMemberRecord.RATE_SELECTOR | MCMemberRecord.RATE), "greater than 2048, exactly the group's rate");
        w.joinState = 0;
        assertEquals(0x0200, status(d, set, of(d, w), join), "JoinState 0");

        MCMemberRecord out = of(c, member(g.mgid, MCMemberRecord.FULLMEMBER_JOIN | MCMemberRecord.NONMEMBER_JOIN));
        assertEquals(0x0200, status(c, del, out, join), "a bit c does not have");
        assertEquals(0x0200, status(d, del, of(d, member(g.mgid, 1)), join), "d is no member");
        assertEquals(0x0200, status(c, del, of(c, member(Gid.parse("ff12:4a52::9"), 1)), join), "no such group");
        assertEquals(0, status(c, del, of(c, member(g.mgid, 1)), join));
        assertEquals(0x0300, status(c, Mad.METHOD_GET, of(c, member(g.mgid, 1)), BY_MGID | MCMemberRecord.PORT_GID),
                "c left: no record");
        assertEquals(1, sm.sa().members(g.mgid).size());
    }

    // ------------------------------------------------------------------ the SA client (core/multicast.c)

    long saRequests() {
        return ib.mad().counters(a, 1).get("sa_requests");
    }

    /** A join of b whose callback statuses land in {@code q}. */
    Multicast joinB(MCMemberRecord rec, long mask, BlockingQueue<Integer> q) {
        return ib.sa().joinMulticast(b, 1, rec, mask, (s, m) -> q.add(s));
    }

    /** b creates a group (full member) with an SA-assigned MGID. */
    Multicast created(BlockingQueue<Integer> q) throws InterruptedException {
        Multicast m = joinB(newGroup(), CREATE, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        return m;
    }

    @Test
    void localJoinsShareThePortsMembershipAndLeavesGiveUpOnlyUnheldBits() throws Exception {
        BlockingQueue<Integer> q1 = new LinkedBlockingQueue<>();
        Multicast creator = created(q1);
        Gid mgid = creator.rec().mgid;
        long before = saRequests();
        BlockingQueue<Integer> q2 = new LinkedBlockingQueue<>();
        Multicast second = joinB(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID, q2);
        assertEquals(0, q2.poll(10, TimeUnit.SECONDS));
        assertEquals(before, saRequests(), "the port is a full member already: no SA request");
        assertEquals(0xc000, second.rec().mlid);
        assertEquals(0x1234, second.rec().qkey);
        BlockingQueue<Integer> q3 = new LinkedBlockingQueue<>();
        MCMemberRecord wrongKey = member(mgid, MCMemberRecord.FULLMEMBER_JOIN);
        wrongKey.qkey = 0x999;
        joinB(wrongKey, BY_MGID | MCMemberRecord.QKEY, q3);
        assertEquals(-22, q3.poll(10, TimeUnit.SECONDS), "cmp_rec: another Q_Key than the group's");
        assertEquals(before, saRequests());

        BlockingQueue<Integer> q4 = new LinkedBlockingQueue<>();
        Multicast non = joinB(member(mgid, MCMemberRecord.NONMEMBER_JOIN), BY_MGID, q4);
        assertEquals(0, q4.poll(10, TimeUnit.SECONDS));
        assertEquals(before + 1, saRequests(), "a bit the port did not hold goes to the SA");
        Gid port = b.queryGid(1, 0);
        assertEquals(Map.of(port, 3), sm.sa().members(mgid));

        MCMemberRecord r = ib.sa().leave(creator).get(10, TimeUnit.SECONDS);
        assertEquals(MCMemberRecord.FULLMEMBER_JOIN, r.joinState, "answered locally: the member's own record");
        assertEquals(before + 1, saRequests(), "the second still holds FULL: nothing for the SA");
        assertEquals(Map.of(port, 3), sm.sa().members(mgid));
        r = ib.sa().leave(second).get(10, TimeUnit.SECONDS); // nobody holds FULL now: SubnAdmDelete(FULL)
        assertEquals(before + 2, saRequests());
        assertEquals(0, r.joinState, "the SA's answer: the port holds nothing (the group went)");
        // the port kept NON, but without a full member the SA dropped the group (osm_mgrp_cleanup)
        assertEquals(Map.of(), sm.sa().members(mgid));
        assertEquals(0, sm.sa().groups().size());
        non.close();
    }

    @Test
    void aPortEventEndsTheMembershipsWithEnetresetAndARejoinWorks() throws Exception {
        BlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        Gid mgid = created(q).rec().mgid; // the join that made the group stays a member too
        Multicast m = joinB(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        b.modifyPort(1, new PortModify().lmc(1)); // LID_CHANGE
        assertEquals(-102, q.poll(10, TimeUnit.SECONDS), "-ENETRESET");
        assertEquals(-102, q.poll(10, TimeUnit.SECONDS), "both members of the port");
        assertNull(q.poll(200, TimeUnit.MILLISECONDS));
        b.modifyPort(1, new PortModify().lmc(0));
        assertNull(q.poll(200, TimeUnit.MILLISECONDS), "no member left to tell");
        ib.sa().leave(m).get(10, TimeUnit.SECONDS); // freeing a reset member is no error

        long before = saRequests();
        Multicast again = joinB(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), BY_MGID, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        assertEquals(before + 1, saRequests(), "after the reset the port holds nothing: the join goes to the SA");
        assertEquals(mgid, again.rec().mgid);
        sm.mcastSync();
        assertArrayEquals(new int[] {ib.loopback(b).linkOf(1)}, ib.fabric().switchOf().ports(again.rec().mlid));
    }

    static final IbClient OWNER = new IbClient() {
        public String name() {
            return "mcast-test";
        }

        public void add(IbDevice device) {
        }

        public void remove(IbDevice device, Object data) {
        }
    };

    /** A UD QP in RTS on port 1 with a 4-slot buffer (receives or the payload to send). */
    static final class Ud {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf = ByteBuffer.allocateDirect(4 * SLOT);
        final MemoryRegion mr;

        Ud(IbDevice dev) {
            pd = dev.allocPd(OWNER);
            cq = dev.createCq(OWNER, new CqInitAttr().cqe(16));
            qp = pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(cq)
                    .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(QKEY));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            for (int i = 0; i < buf.capacity(); i++) {
                buf.put(i, (byte) 0xee);
            }
            mr = pd.regMr(buf, Access.LOCAL_WRITE);
        }

        void postRecv(int n) {
            for (int i = 0; i < n; i++) {
                qp.postRecv(new RecvWr().wrId(100 + i).sgList(new Sge(mr.iova() + (long) i * SLOT, SLOT, mr.lkey())));
            }
        }

        byte[] send(AhAttr av, int seed) throws InterruptedException {
            byte[] data = new byte[LEN];
            for (int i = 0; i < LEN; i++) {
                data[i] = (byte) (seed * 31 + i * 7);
            }
            buf.put(0, data);
            AddressHandle ah = pd.createAh(av);
            qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova(), LEN, mr.lkey())).ud(ah, QueuePair.MULTICAST_QPN, QKEY));
            WorkCompletion wc = poll(5000);
            assertNotNull(wc, "send completion");
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(7, wc.wrId());
            return data;
        }

        WorkCompletion poll(long ms) throws InterruptedException {
            WorkCompletion[] wc = {new WorkCompletion()};
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            while (cq.poll(wc) == 0) {
                if (System.nanoTime() > end) {
                    return null;
                }
                Thread.sleep(1);
            }
            return wc[0];
        }

        /** One receive holding the GRH (DGID = the MGID) and {@code data} byte-exact, nothing after it. */
        void expectCopy(byte[] data, Gid mgid) throws InterruptedException {
            WorkCompletion wc = poll(5000);
            if (wc == null) {
                fail("no copy arrived at " + qp.qpNum());
            }
            assertEquals(WcStatus.SUCCESS, wc.status());
            int slot = (int) (wc.wrId() - 100) * SLOT;
            assertEquals(GRH + LEN, wc.byteLen());
            byte[] dgid = new byte[16];
            buf.get(slot + 24, dgid);
            assertEquals(mgid, Gid.of(dgid), "the GRH's DGID");
            byte[] got = new byte[LEN];
            buf.get(slot + GRH, got);
            assertArrayEquals(data, got, "payload");
            assertEquals((byte) 0xee, buf.get(slot + GRH + LEN), "nothing past the payload");
            expectNone();
        }

        void expectNone() throws InterruptedException {
            WorkCompletion wc = poll(150);
            if (wc != null) {
                fail("unexpected completion " + wc.opcode() + " " + wc.status() + " at QP " + qp.qpNum());
            }
        }
    }
}
