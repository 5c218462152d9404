package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ulp.ipoib.Neighbour;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM's view of the interfaces ({@code addr.c}): local addresses to device, port and GID, destinations through
 * the route and the ARP table, and Linux's errno for what cannot be resolved. ib0 10.0.0.1/24 on the first device,
 * ib1 10.0.0.2/24 on the second.
 */
class IpoibAddrResolverTest extends TwoInterfaces {
    IpoibAddrResolver r;

    @BeforeEach
    void resolver() {
        r = new IpoibAddrResolver(f.client);
    }

    @Test
    void anAddedAddressIsOnItsInterfacesPortAndGid() {
        RdmaDevAddr one = r.translateIp(ip("10.0.0.1"));
        assertEquals("ib0", one.netdev());
        assertEquals(ib0.ifindex(), one.ifindex());
        assertEquals(a, one.device());
        assertEquals(1, one.port());
        assertEquals(a.queryGid(1, 0), one.sgid());
        assertArrayEquals(ib0.hwAddr(), one.srcHw());
        assertNull(one.dgid());
        assertEquals(b, r.translateIp(ip("10.0.0.2")).device());
        assertNull(r.translateIp(ip("10.0.0.3")), "on-link, but nobody's address");
        ib0.removeAddress(ip("10.0.0.1"), 24);
        assertNull(r.translateIp(ip("10.0.0.1")), "ip addr del takes it away");
    }

    @Test
    void aDestinationResolvesThroughArpOnTheRoutesInterface() throws Exception {
        RdmaDevAddr to = get(r.resolveIp(null, ip("10.0.0.1"), 5000));
        assertEquals("ib1", to.netdev(), "10.0.0.1 is reached from the other interface on its subnet");
        assertEquals(b, to.device());
        assertEquals(ip("10.0.0.2"), to.srcIp());
        assertEquals(b.queryGid(1, 0), to.sgid());
        assertEquals(a.queryGid(1, 0), to.dgid(), "the GID in ib0's 20-byte address, from the ARP reply");
        assertArrayEquals(ib0.hwAddr(), to.dstHw());
        Neighbour n = ib1.neighbours().stream().filter(x -> x.address().equals(ip("10.0.0.1"))).findFirst().orElseThrow();
        assertEquals(Neighbour.State.REACHABLE, n.state());
        long arpBefore = ib0.stats().rxPackets();
        assertEquals(a.queryGid(1, 0), get(r.resolveIp(null, ip("10.0.0.1"), 5000)).dgid());
        assertEquals(arpBefore, ib0.stats().rxPackets(), "a REACHABLE neighbour answers at once, no ARP");

        RdmaDevAddr from = get(r.resolveIp(ip("10.0.0.1"), ip("10.0.0.2"), 5000));
        assertEquals("ib0", from.netdev(), "a given source picks its interface");
        assertEquals(b.queryGid(1, 0), from.dgid());
    }

    @Test
    void aDestinationOnTheSourcesOwnInterfaceIsLoopback() throws Exception {
        RdmaDevAddr self = get(r.resolveIp(ip("10.0.0.1"), ip("10.0.0.1"), 5000));
        assertEquals("ib0", self.netdev());
        assertEquals(self.sgid(), self.dgid());
        assertArrayEquals(self.srcHw(), self.dstHw());
        ib1.removeAddress(ip("10.0.0.2"), 24);
        RdmaDevAddr only = get(r.resolveIp(null, ip("10.0.0.1"), 5000));
        assertEquals("ib0", only.netdev(), "no other interface on the subnet: its owner, as Linux's loopback");
        assertEquals(a.queryGid(1, 0), only.dgid());
    }

    @Test
    void whatIsNotOnAnInterfaceIsLeftToTheOthersOrUnreachable() throws Exception {
        assertNull(r.resolveIp(null, ip("192.168.7.7"), 1000), "no interface routes there: RoCE's turn");
        assertNull(r.resolveIp(ip("192.168.7.1"), ip("10.0.0.1"), 1000), "not our source address");
        assertNull(r.resolveIp(null, InetAddress.getByName("fe80::1"), 1000), "IPv4 only");
        assertEquals(Errno.ENETUNREACH, errno(r.resolveIp(ip("10.0.0.1"), ip("192.168.7.7"), 1000)));
        ib1.setUp(false);
        assertEquals(Errno.ENETUNREACH, errno(r.resolveIp(ip("10.0.0.2"), ip("10.0.0.1"), 1000)),
                "an interface that is down routes nothing");
    }

    @Test
    void aSilentNeighbourTimesOutAfterTheGivenTime() throws Exception {
        long t0 = System.nanoTime();
        assertEquals(Errno.ETIMEDOUT, errno(r.resolveIp(null, ip("10.0.0.99"), 300)));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(300), "not before the timeout");
        Neighbour n = ib0.neighbours().stream().filter(x -> x.address().equals(ip("10.0.0.99"))).findFirst().orElseThrow();
        assertEquals(Neighbour.State.INCOMPLETE, n.state(), "asked (ARP), no answer yet");
    }

    @Test
    void aResolutionInFlightWhenTheInterfaceGoesAwayGetsEnodev() throws Exception {
        CompletableFuture<RdmaDevAddr> f1 = r.resolveIp(null, ip("10.0.0.99"), 60_000);
        IpoibFixture.await(() -> !ib0.neighbours().isEmpty(), "the ARP entry");
        f.unregister();
        assertEquals(Errno.ENODEV, errno(f1));
        assertNull(r.translateIp(ip("10.0.0.1")), "the interfaces are gone");
    }

    private static RdmaDevAddr get(CompletableFuture<RdmaDevAddr> f) throws Exception {
        return f.get(IpoibFixture.WAIT_MS, TimeUnit.MILLISECONDS);
    }

    private static Errno errno(CompletableFuture<RdmaDevAddr> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(IpoibFixture.WAIT_MS, TimeUnit.MILLISECONDS));
        return assertInstanceOf(VerbsException.class, e.getCause()).errno();
    }
}
