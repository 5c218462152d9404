package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.IpoibFixture.await;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.buf;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.drops;
import static org.jrdma.ulp.ipoib.impl.Packets.data;
import static org.jrdma.ulp.ipoib.impl.Packets.icmpEcho;
import static org.jrdma.ulp.ipoib.impl.Packets.udp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.jrdma.ulp.ipoib.CmConnection;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.junit.jupiter.api.Test;

/**
 * Connected mode (RFC 4755) between ib0 and ib1 over the managed loopback with an IB CM: the mode switch and its
 * MTU rules, 60000-byte packets byte-exact over RC, a connected and a datagram peer, the datagram fallback after
 * a REJ. The idle reaper and device removal are in {@link IpoibCmLifecycleTest}.
 */
class IpoibConnectedTest extends TwoInterfaces {
    @Override
    CmOptions cmOptions() {
        return new CmOptions(IpoibMode.DATAGRAM, 600_000, 600_000);
    }

    static void connected(IpoibInterface... all) {
        for (IpoibInterface i : all) {
            i.setMode(IpoibMode.CONNECTED);
        }
    }

    /** Sends a UDP datagram of {@code len} bytes from {@code from} to {@code to} and checks it arrives byte-exact. */
    void udpArrives(IpoibInterface from, String src, IpoibInterface to, String dst, int len, int seed)
            throws InterruptedException {
        byte[] p = udp(src, dst, 4000 + seed, 5000, data(len, seed));
        from.send(buf(p));
        assertArrayEquals(p, f.next(to.name()), "datagram " + seed + " of " + p.length + " bytes");
    }

    static List<CmConnection> up(IpoibInterface i, boolean passive) {
        return i.connections().stream().filter(c -> c.passive() == passive && c.state().equals("up")).toList();
    }

    @Test
    void modeSwitchSetsTheRcFlagAndTheMtuAndClampsItBack() {
        assertEquals(IpoibMode.DATAGRAM, ib0.mode());
        assertEquals(2044, ib0.mtu());
        assertEquals(0, ib0.hwAddr()[0]);
        ib0.setMode(IpoibMode.CONNECTED);
        assertEquals(IpoibMode.CONNECTED, ib0.mode());
        assertEquals(65520, ib0.mtu());
        assertEquals((byte) 0x80, ib0.hwAddr()[0]); // IPOIB_FLAGS_RC
        ib0.setMtu(9000);
        assertEquals(9000, ib0.mtu());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> ib0.setMtu(65521));
        assertEquals("Error: mtu greater than device maximum.", big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ib0.setMtu(67));
        ib0.setMode(IpoibMode.DATAGRAM);
        assertEquals(2044, ib0.mtu()); // min(mcast_mtu, 9000)
        assertEquals(0, ib0.hwAddr()[0]);
        IllegalArgumentException ud = assertThrows(IllegalArgumentException.class, () -> ib0.setMtu(4000));
        assertEquals("RTNETLINK answers: Invalid argument", ud.getMessage());
        ib0.setMtu(1500);
        assertEquals(1500, ib0.mtu());
        ib0.setMode(IpoibMode.CONNECTED);
        assertEquals(65520, ib0.mtu()); // connected takes the connected maximum again
        ib0.setMode(IpoibMode.DATAGRAM);
        assertEquals(2044, ib0.mtu());
    }

    @Test
    void connectedPeersMoveLargePacketsByteExactOverRc() throws InterruptedException {
        connected(ib0, ib1);
        for (int i = 0; i < 20; i++) {
            udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 60_000, i);
        }
        for (int i = 0; i < 5; i++) {
            udpArrives(ib1, "10.0.0.2", ib0, "10.0.0.1", 65_520 - 28, 100 + i); // a full 65520-byte IP packet
        }
        await(() -> ib0.stats().rcTxPackets() >= 20 && ib1.stats().rcRxPackets() >= 20, "counted as RC");
        List<CmConnection> out = up(ib0, false);
        assertEquals(1, out.size(), ib0.connections().toString());
        assertEquals(65_520, out.get(0).mtu());
        assertEquals(20, out.get(0).packets());
        assertArrayEqualsQpn(ib1, out.get(0).peer());
        assertEquals(1, up(ib1, true).size(), ib1.connections().toString()); // ib1's passive side of it
        IpoibStats s0 = ib0.stats();
        IpoibStats s1 = ib1.stats();
        assertTrue(s0.rcTxPackets() >= 20 && s1.rcRxPackets() >= 20, s0 + " / " + s1);
        assertTrue(s0.rcTxBytes() >= 20L * (4 + 60_028), s0.toString());
        assertEquals(0, s0.txDropped(), s0.drops().toString());
        assertEquals(0, s1.rxDropped(), s1.drops().toString());
    }

    @Test
    void aModeSwitchAnnouncesTheNewAddressSoPeersResolvedBeforeGoByRc() throws InterruptedException {
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 1000, 1); // ARP in datagram mode: ib1 without the RC flag
        assertEquals(0, ib0.neighbours().get(0).lladdr()[0]);
        connected(ib0, ib1);
        await(() -> ib0.neighbours().get(0).lladdr()[0] == (byte) 0x80, "ib1's gratuitous ARP updated ib0's entry");
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 60_000, 2);
        await(() -> ib0.stats().rcTxPackets() >= 1, "the large packet went by RC");
    }

    @Test
    void aModeSwitchSendsAnUnsolicitedNaSoIpv6PeersLearnTheRcFlagAndGoByRc() throws InterruptedException {
        ib0.addAddress(Packets.ip6("2001:db8::1"), 64);
        ib1.addAddress(Packets.ip6("2001:db8::2"), 64);
        IpoibNetdev d1 = (IpoibNetdev) ib1;
        await(() -> d1.mcast().attached(IpoibMgid.ipv6(Packets.ip6("ff02::1:ff00:2"), d1.pkey())), "ib1's group");
        ib.sm().mcastSync();
        byte[] p = Packets.udp6("2001:db8::1", "2001:db8::2", 1, 2, Packets.data(1000, 7));
        ib0.send(IpoibFixture.buf(p));
        assertArrayEquals(p, f.next("ib1"), "resolved by ND in datagram mode");
        java.util.function.Supplier<byte[]> entry = () -> ib0.neighbours().stream()
                .filter(n -> n.address().equals(Packets.ip6("2001:db8::2"))).findFirst().orElseThrow().lladdr();
        assertEquals(0, entry.get()[0]);
        connected(ib1);
        await(() -> entry.get()[0] == (byte) 0x80, "ib1's unsolicited NA (override) updated ib0's entry");
        assertArrayEquals(ib1.hwAddr(), entry.get());
        connected(ib0);
        byte[] big = Packets.udp6("2001:db8::1", "2001:db8::2", 1, 2, Packets.data(60_000, 8));
        ib0.send(IpoibFixture.buf(big));
        assertArrayEquals(big, f.next("ib1"), "60048 bytes of IPv6 over the RC connection");
        await(() -> ib0.stats().rcTxPackets() >= 1, "counted as connected-mode traffic");
    }

    private static void assertArrayEqualsQpn(IpoibInterface peer, byte[] hw) {
        byte[] mine = peer.hwAddr();
        mine[0] = 0;
        assertArrayEquals(mine, hw, "the connection's peer is " + peer.name());
    }

    @Test
    void aLargeEchoIsAnsweredOverRc() throws InterruptedException {
        connected(ib0, ib1);
        ib1.setReceiver(null); // ib1 answers echo requests itself, as the kernel does
        byte[] payload = data(60_000, 7);
        ib0.send(buf(icmpEcho("10.0.0.1", "10.0.0.2", 8, 0x77, 1, payload)));
        byte[] reply = f.next("ib0");
        assertEquals(icmpEcho("10.0.0.2", "10.0.0.1", 0, 0x77, 1, payload).length, reply.length);
        assertEquals(0, reply[20]); // echo reply
        byte[] got = java.util.Arrays.copyOfRange(reply, 28, reply.length);
        assertArrayEquals(payload, got);
        await(() -> ib1.stats().rcTxPackets() >= 1, "the reply went over RC");
    }

    @Test
    void aConnectedAndADatagramPeerStillTalkByDatagram() throws InterruptedException {
        connected(ib0);
        for (int i = 0; i < 5; i++) {
            udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 2000, i);
            udpArrives(ib1, "10.0.0.2", ib0, "10.0.0.1", 2000, 50 + i);
        }
        assertEquals(List.of(), ib0.connections());
        assertEquals(List.of(), ib1.connections());
        assertEquals(0, ib0.stats().rcTxPackets());
        assertEquals(0, ib0.stats().rcRxPackets());
        long before = drops(ib0, "tx_oversize");
        ib0.send(buf(udp("10.0.0.1", "10.0.0.2", 1, 2, data(3000, 1)))); // fits ib0's MTU, not a datagram
        await(() -> drops(ib0, "tx_oversize") == before + 1, "tx_oversize counted");
        assertEquals(null, f.nextQuick("ib1"));
    }

    /**
     * ib0 knows ib1 as connected-capable (from ARP) but ib1 went datagram and no longer listens: the REQ gets a REJ,
     * the packet that waited and the next ones go by datagram.
     */
    @Test
    void aRejFallsBackToDatagram() throws InterruptedException {
        connected(ib1);
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 100, 1); // ib0 (datagram) learns ib1's address with the flag
        assertEquals((byte) 0x80, ib0.neighbours().get(0).lladdr()[0]);
        ib1.setMode(IpoibMode.DATAGRAM);
        connected(ib0);
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 1000, 2); // REQ, REJ, then by datagram
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 1000, 3);
        assertEquals(List.of(), ib0.connections());
        assertEquals(0, ib0.stats().rcTxPackets());
        assertEquals(0, ib1.stats().rcRxPackets());
    }

    /** Broadcast stays datagram in connected mode; so does a packet too large for it, which is dropped and counted. */
    @Test
    void broadcastStillGoesByDatagram() throws InterruptedException {
        connected(ib0, ib1);
        byte[] p = udp("10.0.0.1", "10.0.0.255", 7, 7, data(1000, 3));
        ib0.send(buf(p));
        assertArrayEquals(p, f.next("ib1"));
        assertEquals(0, ib0.stats().rcTxPackets());
        assertEquals(List.of(), ib0.connections());
        ib0.send(buf(udp("10.0.0.1", "10.0.0.255", 7, 7, data(3000, 3))));
        await(() -> drops(ib0, "tx_oversize") == 1, "a 3028-byte broadcast is too large for the group");
    }

    /**
     * While a connection is set up, {@value CmTx#MAX_QUEUE} packets wait and the rest are dropped and counted: 40
     * packets handed over in one task of ib0's thread (so the REP cannot come in between), 16 arrive over RC.
     */
    @Test
    void packetsWaitingForAConnectionAreBounded() throws InterruptedException {
        connected(ib1);
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 100, 0); // ib0 (still datagram) resolves ib1, RC flag and path
        connected(ib0);
        IpoibNetdev d0 = (IpoibNetdev) ib0;
        List<byte[]> sent = new java.util.ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            sent.add(udp("10.0.0.1", "10.0.0.2", 4000, 5000, data(20_000, i)));
        }
        d0.run(() -> sent.forEach(d0.txPath()::xmit));
        for (int i = 0; i < CmTx.MAX_QUEUE; i++) {
            assertArrayEquals(sent.get(i), f.next("ib1"), "waiting packet " + i);
        }
        assertEquals(null, f.nextQuick("ib1"));
        assertEquals(40 - CmTx.MAX_QUEUE, drops(ib0, "tx_cm_queue_full"));
        await(() -> ib0.stats().rcTxPackets() == CmTx.MAX_QUEUE, "16 sent over RC");
    }

    /** A REQ to ib1's service ID without {@code ipoib_cm_data} is rejected (consumer defined), nothing is kept. */
    @Test
    void aReqWithoutIpoibPrivateDataIsRejected() throws InterruptedException {
        connected(ib1);
        java.util.concurrent.BlockingQueue<org.jrdma.ib.cm.ib.IbCmEvent> got =
                new java.util.concurrent.LinkedBlockingQueue<>();
        org.jrdma.ib.cm.ib.IbCmId id = f.ibCm.createId(a, (i, ev) -> {
            got.add(ev);
            return 0;
        }, null);
        org.jrdma.ib.core.Gid ga = a.queryGid(1, 0);
        org.jrdma.ib.core.Gid gb = b.queryGid(1, 0);
        int qpn = HwAddr.decode(ib1.hwAddr(), 0).qpn();
        id.sendReq(new org.jrdma.ib.cm.ib.IbCmReqParam().serviceId(IpoibCm.IETF_ID | qpn).qpNum(0x123)
                .primaryPath(new org.jrdma.ib.cm.ib.IbCmPath(1, 0, ga, gb, true, a.queryPort(1).lid(),
                        b.queryPort(1).lid(), 0, 4, 0, 18, 0, 0, 0)));
        org.jrdma.ib.cm.ib.IbCmEvent ev = got.poll(IpoibFixture.WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        assertEquals(org.jrdma.ib.cm.ib.IbCmEventType.REJ_RECEIVED, ev == null ? null : ev.type());
        assertEquals(org.jrdma.ib.cm.ib.IbCmRejReason.CONSUMER_DEFINED.code(), ev.rejReason());
        id.close();
        assertEquals(List.of(), ib1.connections());
        udpArrives(ib0, "10.0.0.1", ib1, "10.0.0.2", 1000, 1); // ib1 still fine
    }
}
