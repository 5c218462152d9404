package org.jrdma.ib.mad.sm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortModify;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SA client's {@code core/multicast.c}: local joins of one port to one MGID share the port's SA membership (joins
 * the port holds already do not reach the SA; a leave only gives up bits nobody else holds), and a port event ends
 * the memberships with -ENETRESET so the users join again.
 */
class McastClientTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IbDevice a;
    IbDevice b;
    SubnetManager sm;

    @BeforeEach
    void fabric() throws InterruptedException {
        a = ib.add(1);
        b = ib.add(1);
        sm = ib.sweptBy(a, 0);
    }

    long saRequests() {
        return ib.mad().counters(a, 1).get("sa_requests");
    }

    /** A join whose callback statuses land in {@code q}. */
    Multicast join(MCMemberRecord rec, long mask, BlockingQueue<Integer> q) {
        return ib.sa().joinMulticast(b, 1, rec, mask, (s, m) -> q.add(s));
    }

    static MCMemberRecord member(Gid mgid, int joinState) {
        MCMemberRecord r = new MCMemberRecord();
        r.mgid = mgid;
        r.joinState = joinState;
        return r;
    }

    /** b creates a group (full member) with SA-assigned MGID. */
    Multicast newGroup(BlockingQueue<Integer> q) throws InterruptedException {
        MCMemberRecord r = new MCMemberRecord();
        r.qkey = 0x1234;
        r.pkey = 0xffff;
        r.joinState = MCMemberRecord.FULLMEMBER_JOIN;
        Multicast m = join(r, MulticastForwardingTest.CREATE, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        return m;
    }

    @Test
    void localJoinsShareThePortsMembershipAndLeavesGiveUpOnlyUnheldBits() throws Exception {
        BlockingQueue<Integer> q1 = new LinkedBlockingQueue<>();
        Multicast creator = newGroup(q1);
        Gid mgid = creator.rec().mgid;
        long before = saRequests();
        BlockingQueue<Integer> q2 = new LinkedBlockingQueue<>();
        Multicast second = join(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), MulticastForwardingTest.BY_MGID, q2);
        assertEquals(0, q2.poll(10, TimeUnit.SECONDS));
        assertEquals(before, saRequests(), "the port is a full member already: no SA request");
        assertEquals(0xc000, second.rec().mlid);
        assertEquals(0x1234, second.rec().qkey);
        BlockingQueue<Integer> q3 = new LinkedBlockingQueue<>();
        MCMemberRecord wrongKey = member(mgid, MCMemberRecord.FULLMEMBER_JOIN);
        wrongKey.qkey = 0x999;
        join(wrongKey, MulticastForwardingTest.BY_MGID | MCMemberRecord.QKEY, q3);
        assertEquals(-22, q3.poll(10, TimeUnit.SECONDS), "cmp_rec: another Q_Key than the group's");
        assertEquals(before, saRequests());

        BlockingQueue<Integer> q4 = new LinkedBlockingQueue<>();
        Multicast non = join(member(mgid, MCMemberRecord.NONMEMBER_JOIN), MulticastForwardingTest.BY_MGID, q4);
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
        Gid mgid = newGroup(q).rec().mgid; // the join that made the group stays a member too
        Multicast m = join(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), MulticastForwardingTest.BY_MGID, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        b.modifyPort(1, new PortModify().lmc(1)); // LID_CHANGE
        assertEquals(-102, q.poll(10, TimeUnit.SECONDS), "-ENETRESET");
        assertEquals(-102, q.poll(10, TimeUnit.SECONDS), "both members of the port");
        assertNull(q.poll(200, TimeUnit.MILLISECONDS));
        b.modifyPort(1, new PortModify().lmc(0));
        assertNull(q.poll(200, TimeUnit.MILLISECONDS), "no member left to tell");
        ib.sa().leave(m).get(10, TimeUnit.SECONDS); // freeing a reset member is no error

        long before = saRequests();
        Multicast again = join(member(mgid, MCMemberRecord.FULLMEMBER_JOIN), MulticastForwardingTest.BY_MGID, q);
        assertEquals(0, q.poll(10, TimeUnit.SECONDS));
        assertEquals(before + 1, saRequests(), "after the reset the port holds nothing: the join goes to the SA");
        assertEquals(mgid, again.rec().mgid);
        sm.mcastSync();
        assertArrayEquals(new int[] {ib.loopback(b).linkOf(1)}, ib.fabric().switchOf().ports(again.rec().mlid));
    }
}
