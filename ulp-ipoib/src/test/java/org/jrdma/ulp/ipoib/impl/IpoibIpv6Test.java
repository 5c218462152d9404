package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.IpoibFixture.await;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.buf;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.drops;
import static org.jrdma.ulp.ipoib.impl.Packets.ip6;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.Neighbour;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * IPv6 over IPoIB in datagram mode on the managed loopback fabric (ib0 on lo0-like device A, ib1 on B): addrconf's
 * link-local address and groups, Neighbor Discovery both ways, unicast and multicast byte-exact, and the ND
 * messages RFC 4861 says to ignore or discard. ib0 has 2001:db8::1/64, ib1 2001:db8::2/64.
 */
class IpoibIpv6Test extends TwoInterfaces {
    static final String A = "2001:db8::1";
    static final String B = "2001:db8::2";

    @BeforeEach
    void ipv6() throws InterruptedException {
        ib0.addAddress(ip6(A), 64);
        ib1.addAddress(ip6(B), 64);
        for (IpoibInterface i : List.of(ib0, ib1)) { // addrconf_join_solict, on the interface's thread
            IpoibNetdev d = (IpoibNetdev) i;
            InetAddress mine = ip6(i == ib0 ? A : B);
            await(() -> d.mcast().attached(IpoibMgid.ipv6(Ipv6.solicitedNode(mine), d.pkey())),
                    "solicited-node joined");
        }
        ib.sm().mcastSync(); // the switch forwards the groups joined (the SA answers before the SM programs the MFT)
    }

    static InetAddress linkLocal(IpoibInterface i) {
        return Ipv6.linkLocal(HwAddr.decode(i.hwAddr(), 0).gid());
    }

    static Neighbour neighbour(IpoibInterface i, String addr) {
        return i.neighbours().stream().filter(n -> n.address().equals(ip6(addr))).findFirst().orElse(null);
    }

    @Test
    void linkUpAddsTheLinkLocalAddressAndJoinsAllNodesAndSolicitedNodeGroups() {
        assertTrue(ib0.addresses().contains(new IfAddress(ip6("fe80::6a72:646d:0:101"), 64)),
                "fe80:: and the port GUID: " + ib0.addresses());
        assertTrue(ib0.groups().containsAll(List.of(ip6("ff02::1"), ip6("ff02::1:ff00:101"), ip6("ff02::1:ff00:1"))),
                "all-nodes, the link-local's and 2001:db8::1's solicited-node groups: " + ib0.groups());
    }

    @Test
    void ndResolvesBothWaysAndUnicastGoesThereAndBackByteExact() throws InterruptedException {
        byte[] p = Packets.udp6(A, B, 5000, 5001, Packets.data(1000, 1));
        ib0.send(buf(p));
        assertArrayEquals(p, f.next("ib1"), "the datagram at ib1 after ND, as sent");
        Neighbour n0 = neighbour(ib0, B);
        assertEquals(Neighbour.State.REACHABLE, n0.state());
        assertArrayEquals(ib1.hwAddr(), n0.lladdr(), "the NA's target link-layer address option");
        Neighbour n1 = neighbour(ib1, A);
        assertEquals(Neighbour.State.REACHABLE, n1.state(), "ib1 learned ib0 from the NS's source option");
        assertArrayEquals(ib0.hwAddr(), n1.lladdr());
        assertEquals(1, ib1.stats().multicast(), "the NS to ff02::1:ff00:2");

        byte[] back = Packets.udp6(B, A, 5001, 5000, Packets.data(2044 - 48, 2)); // a full-MTU packet
        ib1.send(buf(back));
        assertArrayEquals(back, f.next("ib0"), "back without an NS of ib1's own");
        await(() -> ib0.stats().rxPackets() == 2 && ib0.stats().txPackets() == 2,
                "ib0: NS + datagram out, NA + back in");
        assertEquals(0, ib0.stats().multicast(), "ib1 sent no NS");
        // counters move on the sender's thread just after the post: awaited, as in IpoibConnectedTest
        await(() -> ib1.stats().txPackets() == 1 + 1, "ib1: the NA and its datagram");
        assertEquals(0, ib0.stats().txDropped() + ib1.stats().txDropped());
        assertEquals(2, ib0.neighbours().size() + ib1.neighbours().size(), "no ARP entries: IPv6 only");
    }

    @Test
    void linkLocalAddressesReachEachOther() throws InterruptedException {
        String from = IfAddress.text(linkLocal(ib1));
        String to = IfAddress.text(linkLocal(ib0));
        byte[] p = Packets.udp6(from, to, 1, 2, Packets.data(64, 3));
        ib1.send(buf(p));
        assertArrayEquals(p, f.next("ib0"), "fe80::/64 is on-link by the link-local address");
        assertEquals(Neighbour.State.REACHABLE, neighbour(ib1, to).state());
    }

    @Test
    void multicastReachesAJoinedGroupAndAllNodes() throws Exception {
        ib1.joinGroup(ip6("ff12::1234")).get(20, TimeUnit.SECONDS);
        ib.sm().mcastSync();
        byte[] m = Packets.udp6(A, "ff12::1234", 5000, 5001, Packets.data(300, 4));
        ib0.send(buf(m));
        assertArrayEquals(m, f.next("ib1"), "through ib0's send-only join of ff12:601b:ffff::1234");
        byte[] all = Packets.udp6(A, "ff02::1", 5000, 5001, Packets.data(20, 5));
        ib0.send(buf(all));
        assertArrayEquals(all, f.next("ib1"), "all-nodes, joined by ib1 on link up");
        assertEquals(2, ib1.stats().multicast());
        assertNull(f.nextQuick("ib0"), "the sender does not get its own copy");
        ib1.leaveGroup(ip6("ff12::1234")).get(20, TimeUnit.SECONDS);
        ib0.send(buf(m));
        assertNull(f.nextQuick("ib1"), "ib1 left the group");
    }

    @Test
    void aSolicitationForAnAddressNotOursIsNeitherAnsweredNorLearnt() throws Exception {
        RawUd raw = new RawUd(a);
        HwAddr ib0Hw = HwAddr.decode(ib0.hwAddr(), 0);
        int dlid = b.queryPort(1).lid();
        int qpn = HwAddr.decode(ib1.hwAddr(), 0).qpn();
        byte[] other = new NdMessage(NdMessage.NS, 0, (java.net.Inet6Address) ip6("2001:db8::99"), ib0Hw)
                .encode(ip6(A), ip6(B));
        raw.send(dlid, qpn, McastGroups.DEFAULT_QKEY, IpoibFaultsTest.frame(Encap.IPV6, other));
        await(() -> ib1.stats().rxPackets() == 1, "ib1 took the NS");
        assertNull(f.nextQuick("ib1"), "ND is not the receiver's");
        assertEquals(0, ib1.stats().txPackets(), "no NA for 2001:db8::99");
        assertTrue(ib1.neighbours().isEmpty(), "and the sender not learnt");

        byte[] mine = new NdMessage(NdMessage.NS, 0, (java.net.Inet6Address) ip6(B), ib0Hw).encode(ip6(A), ip6(B));
        raw.send(dlid, qpn, McastGroups.DEFAULT_QKEY, IpoibFaultsTest.frame(Encap.IPV6, mine));
        await(() -> ib0.stats().rxPackets() == 1, "ib1's NA reached ib0, the address in the NS's option");
        assertArrayEquals(ib0.hwAddr(), neighbour(ib1, A).lladdr(), "learnt from the source option");
        await(() -> ib1.stats().txPackets() == 1, "ib1 counted its NA");
        assertNull(neighbour(ib0, B), "an NA without an entry waiting for it teaches nothing (RFC 4861 7.2.5)");
        raw.close();
    }

    @Test
    void malformedNdIsDroppedAndCountedAndTeachesNothing() throws Exception {
        RawUd raw = new RawUd(a);
        int dlid = b.queryPort(1).lid();
        int qpn = HwAddr.decode(ib1.hwAddr(), 0).qpn();
        byte[] ns = new NdMessage(NdMessage.NS, 0, (java.net.Inet6Address) ip6(B), HwAddr.decode(ib0.hwAddr(), 0))
                .encode(ip6(A), Ipv6.solicitedNode(ip6(B)));
        byte[] hop = ns.clone();
        hop[7] = 64; // RFC 4861 7.1.1: hop limit must be 255
        byte[] zeroOpt = NdCodecTest.withChecksum(ns, 65, 0);
        byte[] shortNs = Packets.ipv6(A, B, 58, 255, new byte[] {(byte) 135, 0, 0, 0, 0, 0, 0, 0}, 2);
        byte[] badSum = ns.clone();
        badSum[42] ^= 0x10;
        int n = 0;
        for (byte[] bad : List.of(hop, zeroOpt, shortNs, badSum)) {
            raw.send(dlid, qpn, McastGroups.DEFAULT_QKEY, IpoibFaultsTest.frame(Encap.IPV6, bad));
            int want = ++n;
            await(() -> drops(ib1, "rx_bad_nd") == want, "malformed NS " + want + " counted");
        }
        assertEquals(4, ib1.stats().rxDropped());
        assertEquals(0, ib1.stats().rxPackets());
        assertEquals(0, ib1.stats().txPackets(), "none answered");
        assertTrue(ib1.neighbours().isEmpty(), "none learnt");
        assertNull(f.nextQuick("ib1"), "none delivered");
        raw.send(dlid, qpn, McastGroups.DEFAULT_QKEY, IpoibFaultsTest.frame(Encap.IPV6, ns));
        await(() -> ib1.stats().txPackets() == 1, "the good NS is answered");
        raw.close();
    }

    @Test
    void anUnansweredSolicitationFailsTheEntryAndDropsItsPacketsCounted() {
        ib0.send(buf(Packets.udp6(A, "2001:db8::99", 1, 2, new byte[8])));
        await(() -> drops(ib0, "tx_unresolved") == 1, "three NS unanswered");
        assertEquals(Neighbour.State.FAILED, neighbour(ib0, "2001:db8::99").state());
        ib0.send(buf(Packets.udp6(A, "2001:db9::1", 1, 2, new byte[8])));
        await(() -> drops(ib0, "tx_no_route") == 1, "off-link: no route (no gateways)");
        ib0.send(buf(new byte[] {0x60, 0, 0, 0, 0, 0}));
        await(() -> drops(ib0, "tx_not_ip") == 1, "shorter than an IPv6 header");
    }

    @Test
    void anEchoRequestIsAnsweredWhileNoReceiverIsAttached() throws InterruptedException {
        ib1.setReceiver(null);
        byte[] req = Packets.icmp6Echo(A, B, 128, 64, 0x77, 1, Packets.data(56, 6));
        ib0.send(buf(req));
        assertArrayEquals(Packets.icmp6Echo(B, A, 129, 64, 0x77, 1, Packets.data(56, 6)), f.next("ib0"),
                "the echo reply: addresses swapped, type 129, checksum right");
    }
}
