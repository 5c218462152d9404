package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.IpoibFixture.await;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.buf;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.drops;
import static org.jrdma.ulp.ipoib.impl.Packets.ip;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.testdriver.TestDriver;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.Neighbour;
import org.jrdma.ulp.ipoib.OperState;
import org.junit.jupiter.api.Test;

/**
 * Datagram mode end to end on the managed loopback fabric: two single-port devices, the SM/SA on the first, ib0 on
 * it and ib1 on the second, 10.0.0.1/24 and 10.0.0.2/24.
 */
class IpoibDatagramTest extends TwoInterfaces {
    @Test
    void anInterfacePerInfiniBandPortInOrderAndNoneOnRoce() throws InterruptedException {
        assertEquals(List.of("ib0", "ib1"), f.client.list().stream().map(IpoibInterface::name).toList());
        assertEquals(a.name(), ib0.device());
        assertEquals(b.name(), ib1.device());
        assertEquals(2044, ib0.mtu(), "IB MTU 2048 of the broadcast group less the 4-byte header");
        assertEquals(IpoibMode.DATAGRAM, ib0.mode());
        assertEquals(0xffff, ib0.pkey());
        HwAddr hw = HwAddr.decode(ib0.hwAddr(), 0);
        assertEquals(a.queryGid(1, 0), hw.gid());
        assertNotEquals(0, hw.qpn());
        assertEquals(0, hw.flags(), "datagram only: no IPOIB_FLAGS_RC");
        assertEquals(HwAddr.broadcast(0xffff), HwAddr.decode(ib0.broadcast(), 0));
        assertEquals(256, ib0.txQueueLen());
        assertTrue(a.resources().stream().anyMatch(r -> IpoibClient.NAME.equals(r.owner())
                && r.summary().startsWith("cqe 384")), "one CQ for the 128 + 256 ring entries: " + a.resources());

        ib.core().registrar().register(new TestDriver(1, LinkLayer.ETHERNET, 0x0200000000000001L).registration("rxe%d"));
        IbDevice two = ib.add(2);
        ib.sm().sweepNow();
        f.up("ib2");
        f.up("ib3");
        assertEquals(List.of("ib0", "ib1", "ib2", "ib3"), f.client.list().stream().map(IpoibInterface::name).toList(),
                "the RoCE port got none; the two-port device's ports got ib2 and ib3");
        assertEquals(2, f.client.get("ib3").orElseThrow().port());
        assertEquals(two.name(), f.client.get("ib2").orElseThrow().device());
        IbDevice rxe = ib.core().device("rxe0").orElseThrow();
        assertEquals(List.of(), IpoibFixture.owned(rxe));
    }

    @Test
    void arpResolvesBothWaysAndAnIcmpEchoGoesThereAndBackByteExact() throws InterruptedException {
        byte[] request = Packets.icmpEcho("10.0.0.1", "10.0.0.2", 8, 0x4242, 1, Packets.data(1000, 1));
        ib0.send(buf(request));
        assertArrayEquals(request, f.next("ib1"), "the echo request at ib1, as sent");
        Neighbour n0 = only(ib0.neighbours());
        assertEquals(ip("10.0.0.2"), n0.address());
        assertEquals(Neighbour.State.REACHABLE, n0.state());
        assertArrayEquals(ib1.hwAddr(), n0.lladdr(), "ARP reply: ib1's 20-byte address");
        assertEquals(b.queryPort(1).lid(), n0.dlid(), "the SA's path leads to ib1's port");
        Neighbour n1 = only(ib1.neighbours());
        assertEquals(ip("10.0.0.1"), n1.address());
        assertArrayEquals(ib0.hwAddr(), n1.lladdr(), "learned from the ARP request");

        byte[] reply = Packets.icmpEcho("10.0.0.2", "10.0.0.1", 0, 0x4242, 1, Packets.data(1000, 1));
        ib1.send(buf(reply));
        assertArrayEquals(reply, f.next("ib0"), "the echo reply at ib0, without a second ARP");
        await(() -> ib0.stats().rxPackets() >= 2, "ib0 counted the ARP reply and the echo reply");

        for (int i = 2; i < 12; i++) {
            byte[] p = Packets.icmpEcho("10.0.0.1", "10.0.0.2", 8, 0x4242, i, Packets.data(2044 - 28, i));
            ib0.send(buf(p));
            assertArrayEquals(p, f.next("ib1"), "full-MTU echo " + i);
        }
        await(() -> ib0.stats().txPackets() == 11 + 1, "11 echoes and 1 ARP request (the reply went from ib1)");
        IpoibStats s0 = ib0.stats();
        assertEquals(0, s0.txDropped());
        IpoibStats s1 = ib1.stats();
        assertTrue(s1.rxBytes() >= 10 * 2048 + 1004, "bytes counted with the 4-byte header: " + s1.rxBytes());
        assertEquals(1, s1.multicast(), "the broadcast ARP request");
    }

    @Test
    void packetsWaitingForArpAreAllSentOnceResolvedWhenThePathIsKnown() throws InterruptedException {
        byte[] first = Packets.icmpEcho("10.0.0.1", "10.0.0.2", 8, 1, 1, new byte[8]);
        ib0.send(buf(first));
        assertArrayEquals(first, f.next("ib1"), "ib0 knows the path to ib1's GID from now on");
        for (int i = 0; i < 10; i++) { // 10.0.0.3 is nobody's yet: the first ARP request goes unanswered
            ib0.send(buf(Packets.icmpEcho("10.0.0.1", "10.0.0.3", 8, 2, i, Packets.data(1000, i))));
        }
        await(() -> ib1.stats().multicast() >= 2, "ib1 heard the request for 10.0.0.3");
        ib1.addAddress(ip("10.0.0.3"), 24); // a second address on ib1, behind the same path: the next probe is answered
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(Packets.icmpEcho("10.0.0.1", "10.0.0.3", 8, 2, i, Packets.data(1000, i)), f.next("ib1"),
                    "packet " + i + ": the ARP queue holds up to unres_qlen_bytes, not 3 packets");
        }
        assertEquals(0, ib0.stats().txDropped());
    }

    static Neighbour only(List<Neighbour> l) {
        assertEquals(1, l.size(), l.toString());
        return l.get(0);
    }

    @Test
    void multicastReachesAJoinedGroupAndBroadcastEveryInterface() throws Exception {
        ib1.joinGroup(ip("224.1.2.3")).get(20, TimeUnit.SECONDS);
        assertEquals(List.of(ip("224.1.2.3")),
                ib1.groups().stream().filter(g -> g instanceof java.net.Inet4Address).toList());
        byte[] m = Packets.udp("10.0.0.1", "224.1.2.3", 5000, 5001, Packets.data(300, 3));
        ib0.send(buf(m));
        assertArrayEquals(m, f.next("ib1"), "through ib0's send-only join");
        assertEquals(1, ib1.stats().multicast());
        assertNull(f.nextQuick("ib0"), "the sender does not get its own copy");

        byte[] bc = Packets.udp("10.0.0.2", "10.0.0.255", 67, 68, Packets.data(100, 4));
        ib1.send(buf(bc));
        assertArrayEquals(bc, f.next("ib0"), "subnet broadcast through the broadcast group");

        ib1.leaveGroup(ip("224.1.2.3")).get(20, TimeUnit.SECONDS);
        ib0.send(buf(m));
        await(() -> ib0.stats().txPackets() >= 2 || drops(ib0, "tx_no_group") > 0, "ib0 sent or dropped");
        assertNull(f.nextQuick("ib1"), "ib1 left the group");

        byte[] nobody = Packets.udp("10.0.0.1", "224.9.9.9", 5000, 5001, Packets.data(10, 5));
        ib0.send(buf(nobody));
        await(() -> drops(ib0, "tx_no_group") >= 1, "a group nobody created: the send-only join is refused");
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> ib0.leaveGroup(ip("224.7.7.7")).get(20, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("not joined"), e.getCause().getMessage());
    }

    @Test
    void unresolvableUnroutableAndOversizedSendsAreCountedDrops() throws InterruptedException {
        ib0.send(buf(Packets.icmpEcho("10.0.0.1", "192.168.7.7", 8, 1, 1, new byte[8])));
        await(() -> drops(ib0, "tx_no_route") == 1, "no route off the subnet");
        ib0.send(buf(Packets.icmpEcho("10.0.0.1", "10.0.0.1", 8, 1, 1, new byte[2044 - 27])));
        await(() -> drops(ib0, "tx_oversize") == 1, "2045 bytes over an MTU of 2044");
        ib0.send(buf(new byte[] {0x60, 0, 0, 0}));
        await(() -> drops(ib0, "tx_not_ip") == 1, "not an IPv4 packet");
        ib0.send(buf(Packets.icmpEcho("10.0.0.1", "10.0.0.99", 8, 1, 1, new byte[8])));
        await(() -> drops(ib0, "tx_unresolved") == 1, "three ARP probes unanswered");
        Neighbour n = only(ib0.neighbours());
        assertEquals(Neighbour.State.FAILED, n.state());
        assertNull(n.lladdr());
        assertEquals(3, ib1.stats().multicast(), "ib1 heard the three broadcast requests");
        assertEquals(4, ib0.stats().txDropped());
        assertEquals(OperState.UP, ib0.state());
    }
}
