package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.IpoibFaultsTest.leakedByIpoib;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.assertNothingOwned;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.await;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.buf;
import static org.jrdma.ulp.ipoib.impl.IpoibFixture.owned;
import static org.jrdma.ulp.ipoib.impl.Packets.data;
import static org.jrdma.ulp.ipoib.impl.Packets.udp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.ib.cm.impl.IbCmIds;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibMode;
import org.junit.jupiter.api.Test;

/**
 * Connections coming and going: the idle reaper (a short {@code IPOIB_CM_RX_TIMEOUT}) closes a passive connection,
 * the DREQ closes the active side, the next packet connects again; a mode switch back to datagram and a device
 * removal under RC traffic leave no QP, SRQ, CQ, MR or CM id behind.
 */
class IpoibCmLifecycleTest extends TwoInterfaces {
    @Override
    CmOptions cmOptions() {
        return new CmOptions(IpoibMode.DATAGRAM, 500, 600_000);
    }

    void udpArrives(int len, int seed) throws InterruptedException {
        byte[] p = udp("10.0.0.1", "10.0.0.2", 4000, 5000, data(len, seed));
        ib0.send(buf(p));
        assertArrayEquals(p, f.next("ib1"), "datagram " + seed);
    }

    static boolean hasUp(IpoibInterface i, boolean passive) {
        return i.connections().stream().anyMatch(c -> c.passive() == passive && c.state().equals("up"));
    }

    @Test
    void theIdleReaperClosesAConnectionAndTheNextPacketReconnects() throws InterruptedException {
        ib0.setMode(IpoibMode.CONNECTED);
        ib1.setMode(IpoibMode.CONNECTED);
        udpArrives(30_000, 1);
        assertTrue(hasUp(ib0, false), ib0.connections().toString());
        int qp = ib0.connections().get(0).qpn();
        await(() -> ib1.connections().isEmpty(), "ib1's idle passive connection reaped");
        await(() -> ib0.connections().isEmpty(), "ib0's active connection closed by the DREQ");
        udpArrives(30_000, 2);
        assertTrue(hasUp(ib0, false), ib0.connections().toString());
        assertTrue(ib0.connections().get(0).qpn() != qp, "a new connection");
        // counters move on the interfaces' threads, maybe just after the packet is seen
        await(() -> ib0.stats().rcTxPackets() == 2 && ib1.stats().rcRxPackets() == 2, "2 packets over RC each way");
        assertEquals(0, ib0.stats().txDropped(), ib0.stats().drops().toString());
    }

    @Test
    void backToDatagramFreesEveryConnectionAndTheSrq() throws InterruptedException {
        List<?> before = owned(a);
        ib0.setMode(IpoibMode.CONNECTED);
        ib1.setMode(IpoibMode.CONNECTED);
        assertEquals(1, owned(a).stream().filter(r -> r.type() == ResourceType.SRQ).count());
        udpArrives(10_000, 1);
        ib0.setMode(IpoibMode.DATAGRAM);
        ib1.setMode(IpoibMode.DATAGRAM);
        assertEquals(before.size(), owned(a).size(), owned(a).toString());
        assertEquals(List.of(), ib0.connections());
        await(() -> IbCmIds.live(f.ibCm) == 0, "no CM id left");
        udpArrives(1000, 2); // by datagram: ib0 still knows ib1 with the flag, but is datagram itself
        await(() -> ib0.stats().rcTxPackets() == 1, "only the first over RC");
    }

    @Test
    void deviceRemoveUnderRcTrafficLeavesNothingBehind() throws Exception {
        ib0.setMode(IpoibMode.CONNECTED);
        ib1.setMode(IpoibMode.CONNECTED);
        udpArrives(60_000, 0);
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                ib0.send(buf(udp("10.0.0.1", "10.0.0.2", 1, 2, data(60_000, i))));
                ib1.send(buf(udp("10.0.0.2", "10.0.0.1", 1, 2, data(60_000, i))));
                Thread.onSpinWait();
            }
        }, "rc-traffic");
        t.start();
        try {
            await(() -> ib1.stats().rcTxPackets() > 20, "traffic both ways over RC");
            UnregisterReport r = ib.loopback(b).close(); // hot-unplug ib1's device under traffic
            ib.unplug(b);
            assertTrue(r.clientsRemoved().contains(IpoibClient.NAME), r.toString());
            assertEquals(List.of(), leakedByIpoib(r), "ipoib freed all it had on " + r.deviceName());
            assertEquals(List.of("ib0"), f.client.list().stream().map(IpoibInterface::name).toList());
        } finally {
            stop.set(true);
            t.join(10_000);
        }
        f.unregister();
        assertNothingOwned(a);
        await(() -> IbCmIds.live(f.ibCm) == 0, "no CM id left");
    }

    /** Carrier loss closes the active connections ({@code ipoib_flush_paths}); once ACTIVE again, RC again. */
    @Test
    void carrierLossClosesActiveConnectionsAndTrafficReconnects() throws InterruptedException {
        ib0.setMode(IpoibMode.CONNECTED);
        ib1.setMode(IpoibMode.CONNECTED);
        byte[] p = udp("10.0.0.2", "10.0.0.1", 1, 2, data(30_000, 1));
        ib1.send(buf(p));
        assertArrayEquals(p, f.next("ib0"));
        assertTrue(hasUp(ib1, false), ib1.connections().toString());
        b.modifyPort(1, new org.jrdma.ib.core.PortModify().state(org.jrdma.ib.core.PortState.DOWN));
        await(() -> ib1.state() == org.jrdma.ulp.ipoib.OperState.DOWN, "ib1 lost its carrier");
        await(() -> ib1.connections().stream().noneMatch(c -> !c.passive()), "ib1's active connection closed");
        ib.sm().sweepNow();
        await(() -> ib1.state() == org.jrdma.ulp.ipoib.OperState.UP, "ib1 up again");
        byte[] q = udp("10.0.0.2", "10.0.0.1", 1, 2, data(30_000, 2));
        ib1.send(buf(q));
        assertArrayEquals(q, f.next("ib0"), "over a new connection");
        await(() -> ib1.stats().rcTxPackets() == 2, "the second packet counted as RC");
    }

    /**
     * {@code ip link set ib1 down} closes ib1's connections and CM side (the peer's ends close on the DREQs), frees
     * the SRQ, leaves the groups; up listens and joins again, and RC traffic connects again.
     */
    @Test
    void interfaceDownClosesEveryConnectionAndUpConnectsAgain() throws InterruptedException {
        ib0.setMode(IpoibMode.CONNECTED);
        ib1.setMode(IpoibMode.CONNECTED);
        udpArrives(30_000, 1);
        assertTrue(hasUp(ib0, false) && !ib1.connections().isEmpty(), ib0.connections() + " " + ib1.connections());
        ib1.setUp(false);
        assertEquals(false, ib1.isUp());
        assertEquals(org.jrdma.ulp.ipoib.OperState.DOWN, ib1.state());
        assertEquals(List.of(), ib1.connections());
        // the UD side stays (PD, CQ, QP, 2 MRs); the SRQ, RC QPs, CM CQ and MRs are gone, and so are the AHs
        assertEquals(List.of("PD", "CQ", "QP", "MR", "MR"), owned(b).stream().map(r -> r.type().name()).toList(),
                owned(b).toString());
        await(() -> ib0.connections().isEmpty(), "ib0's ends closed by ib1's DREQs");
        await(() -> IbCmIds.live(f.ibCm) == 1, "only ib0's listener left in the IB CM");
        ib1.setUp(true);
        await(() -> ib1.state() == org.jrdma.ulp.ipoib.OperState.UP, "ib1 joined again");
        assertEquals(65520, ib1.mtu());
        udpArrives(30_000, 2);
        assertTrue(hasUp(ib0, false), ib0.connections().toString());
        await(() -> ib1.stats().rcRxPackets() == 2, "both over RC");
    }
}
