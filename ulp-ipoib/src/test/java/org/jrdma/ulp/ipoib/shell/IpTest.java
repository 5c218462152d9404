package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.impl.IpoibClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ip link}, {@code ip addr}, {@code ip neigh}, {@code ip -s link} over two live interfaces. */
class IpTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IpoibClient client;
    IbDevice a;
    IbDevice b;

    @BeforeEach
    void up() throws InterruptedException {
        client = ToolRun.twoInterfacesUp(ib);
        a = ib.device(0);
        b = ib.device(1);
    }

    @AfterEach
    void down() {
        ib.core().unregisterClient(client);
    }

    ToolRun ip(String... args) {
        return ToolRun.of((out, err) -> new Ip(client, out, err).main(args));
    }

    String hw(String name) {
        return HexFormat.ofDelimiter(":").formatHex(client.get(name).orElseThrow().hwAddr());
    }

    static final String BRD = "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff";
    /** ib0's link-local address: fe80:: and lo0 port 1's GUID 6a72:646d:0:101 (its U/L bit already set). */
    static final String LL0 = "fe80::6a72:646d:0:101";
    static final String LIFE = "\n       valid_lft forever preferred_lft forever\n";

    /** {@code ip maddr}: the groups an interface joined, with their IPoIB link-level addresses, as ipmaddr.c prints. */
    @Test
    void maddrShowsTheGroupsAndTheirLinkLevelAddresses() throws Exception {
        IpoibInterface ib0 = client.get("ib0").orElseThrow();
        ib0.joinGroup(InetAddress.getByName("239.1.2.3")).get(10, TimeUnit.SECONDS);
        ToolRun r = ip("maddr", "show", "dev", "ib0");
        assertEquals(0, r.status(), r.err());
        String out = r.out();
        assertTrue(out.startsWith(ib0.ifindex() + ":\tib0\n"), out);
        // ip_ib_mc_map: 00:ff:ff:ff, then ff12:401b:PKEY:: and the group's low 28 bits
        assertTrue(out.contains("\tlink  00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:0f:01:02:03\n"), out);
        assertTrue(out.contains("\tinet  239.1.2.3\n"), out);
        // the all-nodes group joined at open (ipv6_ib_mc_map: ff12:601b:PKEY: and the low 80 bits of ff02::1)
        assertTrue(out.contains("\tlink  00:ff:ff:ff:ff:12:60:1b:ff:ff:00:00:00:00:00:00:00:00:00:01\n"), out);
        assertTrue(out.contains("\tinet6 ff02::1\n"), out);
        assertTrue(out.indexOf("\tlink ") < out.indexOf("\tinet ") && out.indexOf("\tinet ") < out.indexOf("\tinet6 "),
                "link, then inet, then inet6: " + out);
        String four = ip("-4", "maddr", "show", "dev", "ib0").out();
        assertTrue(four.contains("\tinet  239.1.2.3\n") && !four.contains("inet6") && !four.contains("link"), four);
        assertEquals("Device \"ib9\" does not exist.\n", ip("maddr", "show", "dev", "ib9").err());
        assertEquals(255, ip("maddr", "flush").status());
        assertTrue(ip("m").out().contains(":\tib1\n"), "ip m is ip maddr, as iproute2's prefix match");
    }

    @Test
    void ipv6AddressesAreAddedShownByScopeAndFamilyAndRefusedWhenBad() {
        assertEquals(0, ip("addr", "add", "2001:db8::1/64", "dev", "ib0").status());
        assertEquals(0, ip("addr", "add", "10.0.0.1/24", "dev", "ib0").status());
        assertEquals(0, ip("addr", "add", "2001:DB8:0:0:1:0:0:1", "dev", "ib0").status(), "no length: /128");
        ToolRun r = ip("addr", "show", "ib0");
        assertTrue(r.out().endsWith("    inet 10.0.0.1/24 scope global ib0" + LIFE
                + "    inet6 2001:db8::1:0:0:1/128 scope global " + LIFE
                + "    inet6 2001:db8::1/64 scope global " + LIFE
                + "    inet6 " + LL0 + "/64 scope link " + LIFE), r.out());
        ToolRun six = ip("-6", "addr", "show", "dev", "ib0");
        assertTrue(!six.out().contains(" inet ") && six.out().contains(" inet6 2001:db8::1/64 "), six.out());
        assertTrue(!ip("-4", "addr").out().contains("inet6"));
        assertEquals(2, ip("addr", "add", "2001:db8::1/64", "dev", "ib0").status(), "File exists");
        assertEquals("Error: inet6 prefix is expected rather than \"2001:db8::zz/64\".\n",
                ip("addr", "add", "2001:db8::zz/64", "dev", "ib0").err());
        assertEquals(1, ip("addr", "add", "2001:db8::1/129", "dev", "ib0").status());
        assertEquals(1, ip("addr", "add", "fe80::1%ib0/64", "dev", "ib0").status(), "no zone in an address");
        ToolRun mc = ip("addr", "add", "ff02::5/128", "dev", "ib0");
        assertEquals("RTNETLINK answers: Invalid argument\n", mc.err());
        assertEquals(2, mc.status());
        assertEquals(0, ip("addr", "del", "2001:db8::1/64", "dev", "ib0").status());
        assertTrue(!ip("addr", "show", "ib0").out().contains("2001:db8::1/64"));
    }

    @Test
    void ipLinkListsTheInterfacesAsIproute2() {
        ToolRun r = ip("link");
        assertEquals(0, r.status());
        assertEquals("1: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP mode DEFAULT group default"
                + " qlen 256\n    link/infiniband " + hw("ib0") + " brd " + BRD + "\n"
                + "2: ib1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP mode DEFAULT group default"
                + " qlen 256\n    link/infiniband " + hw("ib1") + " brd " + BRD + "\n", r.out());
        assertEquals(ip("link").out(), ip("l", "show").out(), "prefixes as iproute2's matches()");
    }

    @Test
    void ipDetailsShowPkeyModeQpnAndParent() {
        ToolRun r = ip("-d", "link", "show", "ib1");
        assertEquals(0, r.status(), r.err());
        String qpn = String.format("0x%06x", Integer.parseInt(hw("ib1").substring(3, 11).replace(":", ""), 16));
        assertTrue(r.out().contains("\n    ipoib pkey  0xffff mode  datagram umcast  0000 qpn " + qpn
                + " parentbus infiniband parentdev " + b.name() + " port 1 \n"), r.out());
        assertTrue(r.out().startsWith("2: ib1: "), r.out());
        assertTrue(r.out().contains(" promiscuity 0 minmtu 68 maxmtu 65520 "), r.out());
        ToolRun none = ip("link", "show", "dev", "ib7");
        assertEquals(1, none.status());
        assertEquals("Device \"ib7\" does not exist.\n", none.err());
    }

    @Test
    void ipAddrAddShowsAndRefusesTwice() {
        assertEquals(0, ip("addr", "add", "10.0.0.1/24", "dev", "ib0").status());
        ToolRun r = ip("addr", "show", "dev", "ib0");
        assertTrue(r.out().startsWith("1: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP group "
                + "default qlen 256\n"), r.out());
        assertTrue(r.out().endsWith("    inet 10.0.0.1/24 scope global ib0\n       valid_lft forever preferred_lft "
                + "forever\n    inet6 " + LL0 + "/64 scope link \n       valid_lft forever preferred_lft forever\n"),
                r.out());
        ToolRun again = ip("addr", "add", "10.0.0.1/24", "dev", "ib0");
        assertEquals(2, again.status());
        assertEquals("RTNETLINK answers: File exists\n", again.err());
        assertEquals(1, ip("addr", "add", "10.0.0.1/24").status(), "no dev");
        assertEquals("Error: inet prefix is expected rather than \"10.0.0/24\".\n",
                ip("a", "add", "10.0.0/24", "dev", "ib0").err());
        assertEquals("Cannot find device \"ib9\"\n", ip("addr", "add", "10.0.0.3/24", "dev", "ib9").err());
        assertEquals(0, ip("addr", "del", "10.0.0.1/24", "dev", "ib0").status());
        assertEquals(2, ip("addr", "del", "10.0.0.1/24", "dev", "ib0").status());
        assertEquals(255, ip("route").status());
        assertEquals("Object \"route\" is unknown, try \"ip help\".\n", ip("route").err());
    }

    @Test
    void ipNeighShowsIpv6EntriesAsIproute2() throws Exception {
        ip("addr", "add", "10.0.0.1/24", "dev", "ib0");
        ip("addr", "add", "2001:db8::1/64", "dev", "ib0");
        ip("addr", "add", "2001:db8::2/64", "dev", "ib1");
        IpoibInterface ib0 = client.get("ib0").orElseThrow();
        java.util.concurrent.BlockingQueue<Integer> got = new java.util.concurrent.LinkedBlockingQueue<>();
        client.get("ib1").orElseThrow().setReceiver((i, p) -> got.add(p.remaining()));
        byte[] pkt = new byte[48]; // IPv6, 8 bytes of payload (no next header: 59)
        pkt[0] = 0x60;
        pkt[5] = 8;
        pkt[6] = 59;
        pkt[7] = 64;
        System.arraycopy(InetAddress.getByName("2001:db8::1").getAddress(), 0, pkt, 8, 16);
        System.arraycopy(InetAddress.getByName("2001:db8::2").getAddress(), 0, pkt, 24, 16);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Integer len = null;
        while (len == null && System.nanoTime() < end) { // the first NS may beat ib1's join of its group
            ib0.send(ByteBuffer.wrap(pkt));
            len = got.poll(1500, TimeUnit.MILLISECONDS);
        }
        assertEquals(48, len);
        assertEquals("2001:db8::2 dev ib0 lladdr " + hw("ib1") + " REACHABLE\n",
                ip("-6", "neigh", "show", "dev", "ib0").out());
        assertEquals("", ip("-4", "neigh", "show", "dev", "ib0").out(), "no ARP entry");
        assertTrue(ip("neigh").out().contains("2001:db8::1 dev ib1 lladdr " + hw("ib0") + " REACHABLE\n"),
                "ib1 learnt ib0 from the NS");
    }

    @Test
    void ipNeighAndStatisticsAfterAPing() throws Exception {
        ip("addr", "add", "10.0.0.1/24", "dev", "ib0");
        ip("addr", "add", "10.0.0.2/24", "dev", "ib1");
        IpoibInterface ib0 = client.get("ib0").orElseThrow();
        IpoibInterface ib1 = client.get("ib1").orElseThrow();
        java.util.concurrent.BlockingQueue<Integer> got = new java.util.concurrent.LinkedBlockingQueue<>();
        ib1.setReceiver((i, p) -> got.add(p.remaining()));
        byte[] pkt = new byte[84];
        pkt[0] = 0x45;
        pkt[3] = 84;
        pkt[9] = 1;
        System.arraycopy(InetAddress.getByName("10.0.0.1").getAddress(), 0, pkt, 12, 4);
        System.arraycopy(InetAddress.getByName("10.0.0.2").getAddress(), 0, pkt, 16, 4);
        ib0.send(ByteBuffer.wrap(pkt));
        assertEquals(84, got.poll(20, TimeUnit.SECONDS));
        ToolRun n = ip("neigh", "show", "dev", "ib0");
        assertEquals("10.0.0.2 dev ib0 lladdr " + hw("ib1") + " REACHABLE\n", n.out());
        ToolRun d = ip("-d", "neigh");
        assertTrue(Pattern.compile("10\\.0\\.0\\.2 dev ib0 lladdr \\S+ dlid 0x[0-9a-f]{4} sl 0 REACHABLE\n")
                .matcher(d.out()).find(), d.out());
        assertTrue(d.out().contains("10.0.0.1 dev ib1 lladdr " + hw("ib0") + " "), d.out());
        ToolRun s = ip("-s", "link", "show", "ib1");
        String[] lines = s.out().split("\n");
        assertEquals("    RX:  bytes packets errors dropped  missed   mcast           ", lines[2]);
        assertEquals(String.format("    %10d %7d %6d %7d %7d %7d ", 88 + 60, 2, 0, 0, 0, 1), lines[3],
                "the ARP request (broadcast, 4 + 56 bytes) and the packet (4 + 84)");
        assertEquals("    TX:  bytes packets errors dropped carrier collsns           ", lines[4]);
        assertEquals(String.format("    %10d %7d %6d %7d %7d %7d ", 60, 1, 0, 0, 0, 0), lines[5], "the ARP reply");
        ib0.send(ByteBuffer.wrap(new byte[3000]));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ib0.stats().txDropped() == 0 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertTrue(ip("-s", "-s", "link", "show", "ib0").out().contains("    drops: tx_oversize 1\n"));
    }
}
