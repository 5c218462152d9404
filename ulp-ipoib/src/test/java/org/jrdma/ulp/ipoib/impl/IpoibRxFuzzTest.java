package org.jrdma.ulp.ipoib.impl;

import static org.jrdma.ulp.ipoib.impl.Packets.ip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibStats;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: IPoIB frames (the 4-byte header, then IPv4, IPv6, ARP or anything) sent by a bare UD QP of another device
 * to ib1's QP, over the managed loopback fabric (SM/SA on the first device): the whole receive path (the UD QP, the
 * receive ring, {@code RxPath}, ARP and ND, ICMP and ICMPv6 echo, the receiver). Per input: the frame is counted
 * once, as received (rx_packets) or dropped by reason (rx_dropped); the interface stays UP; no thread dies; the ARP
 * and ND tables each stay within {@link Neighbours#MAX_ENTRIES}. Seeds: ARP requests and replies, IPv4 UDP and ICMP
 * echo, IPv6 UDP, an NS for ib1's link-local address, an NA, an ICMPv6 echo request (fuzz/seeds.py).
 */
class IpoibRxFuzzTest {
    private static FuzzWatch watch;
    private static ManagedIbFabric ib;
    private static IpoibFixture f;
    private static IpoibInterface ib1;
    private static RawUd raw;
    private static int dlid;
    private static int qpn;

    private static void start() throws Exception {
        watch = new FuzzWatch();
        ib = new ManagedIbFabric();
        IbDevice a = ib.add(1);
        IbDevice b = ib.add(1);
        ib.sweptBy(a, 0);
        f = new IpoibFixture(ib).register();
        f.up("ib0").addAddress(ip("10.0.0.1"), 24);
        ib1 = f.up("ib1");
        ib1.addAddress(ip("10.0.0.2"), 24);
        raw = new RawUd(a);
        dlid = b.queryPort(1).lid();
        qpn = HwAddr.decode(ib1.hwAddr(), 0).qpn();
    }

    @FuzzTest(maxDuration = "60s")
    void frame(byte[] frame) throws Exception {
        if (ib == null) {
            start();
        }
        if (frame.length > 2044) {
            return; // over the interface's MTU: the UD send itself fails (a fabric rule, not ipoib's)
        }
        long seen = seen(ib1.stats());
        raw.send(dlid, qpn, McastGroups.DEFAULT_QKEY, frame);
        long end = System.nanoTime() + 10_000_000_000L;
        while (seen(ib1.stats()) == seen && System.nanoTime() - end < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        assertEquals(seen + 1, seen(ib1.stats()), () -> "the frame is counted once, received or dropped: "
                + ib1.stats());
        while (f.poll("ib1") != null) {
            // what reached the receiver: the queue must not grow over the run
        }
        assertEquals(OperState.UP, ib1.state());
        long v6 = ib1.neighbours().stream().filter(n -> n.address() instanceof java.net.Inet6Address).count();
        long v4 = ib1.neighbours().size() - v6;
        assertTrue(v4 <= Neighbours.MAX_ENTRIES && v6 <= Neighbours.MAX_ENTRIES, "ARP " + v4 + ", ND " + v6);
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "a failure logged or a dead thread: " + failed);
    }

    private static long seen(IpoibStats s) {
        return s.rxPackets() + s.rxDropped();
    }

    @AfterAll
    static void stop() {
        if (ib != null) {
            System.out.println("IpoibRxFuzzTest: ib1 " + ib1.stats() + ", " + ib1.neighbours().size() + " neighbours");
            raw.close();
            f.close();
            ib.close();
            ib = null;
            watch.close();
        }
    }
}
