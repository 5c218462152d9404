package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.jrdma.ib.cm.impl.IbCmService;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.impl.IpoibClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ip link set ... type ipoib mode ... / mtu}, {@code ip -d link}'s mode, the RC counters and {@code cm}. */
class IpLinkSetTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IbCmService cm;
    IpoibClient client;

    @BeforeEach
    void up() throws InterruptedException {
        cm = new IbCmService(ib.core(), ib.mad());
        client = ToolRun.twoInterfacesUp(ib, cm);
    }

    @AfterEach
    void down() {
        ib.core().unregisterClient(client);
        cm.close();
    }

    ToolRun ip(String... args) {
        return ToolRun.of((out, err) -> new Ip(client, out, err).main(args));
    }

    @Test
    void modeAndMtuAsIproute2SetsThem() {
        ToolRun r = ip("link", "set", "ib0", "type", "ipoib", "mode", "connected");
        assertEquals(0, r.status(), r.err());
        ToolRun d = ip("-d", "link", "show", "ib0");
        assertTrue(d.out().contains(" mtu 65520 "), d.out());
        assertTrue(d.out().contains(" mode  connected "), d.out());
        assertTrue(d.out().contains("link/infiniband 80:"), d.out()); // IPOIB_FLAGS_RC
        assertEquals(0, ip("link", "set", "dev", "ib0", "mtu", "9000").status());
        assertTrue(ip("link", "show", "ib0").out().contains(" mtu 9000 "));
        ToolRun big = ip("link", "set", "ib0", "mtu", "65521");
        assertEquals(2, big.status());
        assertEquals("Error: mtu greater than device maximum.\n", big.err());
        assertEquals(0, ip("link", "set", "ib0", "type", "ipoib", "mode", "datagram").status());
        ToolRun back = ip("-d", "link", "show", "ib0");
        assertTrue(back.out().contains(" mtu 2044 ") && back.out().contains(" mode  datagram "), back.out());
        ToolRun ud = ip("link", "set", "ib0", "mtu", "4000");
        assertEquals(2, ud.status());
        assertEquals("RTNETLINK answers: Invalid argument\n", ud.err());
        assertEquals(1, ip("link", "set", "ib0", "type", "ipoib", "mode", "bogus").status());
        assertEquals("Cannot find device \"ib9\"\n", ip("link", "set", "ib9", "mtu", "1500").err());
        assertEquals(0, ip("link", "set", "ib1", "down").status());
        assertTrue(ip("link", "show", "ib1").out().startsWith("2: ib1: <BROADCAST,MULTICAST> mtu 2044 qdisc mq state DOWN "),
                ip("link", "show", "ib1").out());
        assertEquals(0, ip("link", "set", "ib1", "up").status());
    }

    @Test
    void statisticsAndCmShowWhatMovedOverRc() throws Exception {
        ip("addr", "add", "10.0.0.1/24", "dev", "ib0");
        ip("addr", "add", "10.0.0.2/24", "dev", "ib1");
        ip("link", "set", "ib0", "type", "ipoib", "mode", "connected");
        ip("link", "set", "ib1", "type", "ipoib", "mode", "connected");
        IpoibInterface ib0 = client.get("ib0").orElseThrow();
        BlockingQueue<Integer> got = new LinkedBlockingQueue<>();
        client.get("ib1").orElseThrow().setReceiver((i, p) -> got.add(p.remaining()));
        byte[] pkt = new byte[50_000];
        pkt[0] = 0x45;
        pkt[2] = (byte) (50_000 >>> 8);
        pkt[3] = (byte) 50_000;
        pkt[9] = 17;
        System.arraycopy(InetAddress.getByName("10.0.0.1").getAddress(), 0, pkt, 12, 4);
        System.arraycopy(InetAddress.getByName("10.0.0.2").getAddress(), 0, pkt, 16, 4);
        ib0.send(ByteBuffer.wrap(pkt));
        assertEquals(50_000, got.poll(20, TimeUnit.SECONDS));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ib0.stats().rcTxPackets() == 0 && System.nanoTime() < end) {
            Thread.sleep(5); // counted on ib0's thread, maybe just after ib1 has the packet
        }
        String s = ip("-s", "-s", "link", "show", "ib0").out();
        // ib1's ARP reply went over a connection of its own, as Linux sends it (the neighbour has the RC flag)
        assertTrue(s.contains("    connected: RX 60 bytes 1 packets TX 50004 bytes 1 packets\n"), s);
        ToolRun v = ToolRun.of((out, err) -> CmView.main(client, new String[] {"ib0"}, out, err));
        assertTrue(v.out().contains("ib0 tx qpn 0x"), v.out());
        assertTrue(Pattern.compile("ib0 tx qpn 0x[0-9a-f]{6} remote 0x[0-9a-f]{6} peer 00:\\S+ mtu 65520 up packets 1\n")
                .matcher(v.out()).find(), v.out());
        assertTrue(Pattern.compile("ib0 rx qpn 0x[0-9a-f]{6} remote 0x[0-9a-f]{6} peer 00:\\S+ mtu 0 up packets 1\n")
                .matcher(v.out()).find(), v.out());
        assertEquals(2, v.out().lines().count(), v.out());
        ToolRun none = ToolRun.of((out, err) -> CmView.main(client, new String[] {"ib7"}, out, err));
        assertEquals(1, none.status());
    }
}
