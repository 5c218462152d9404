package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jrdma.ib.cm.impl.IbCmService;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.impl.IpoibClient;
import org.jrdma.ulp.ipoib.tun.TunAttachments;
import org.jrdma.ulp.ipoib.tun.TunAttachments.Attachment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ipoib attach}: the host's IP stack over IPoIB through TUN devices in two network namespaces made by the test,
 * the kernel's own {@code ping} across, in datagram and connected mode; the client unregistered and registered under
 * the attachment. The host parts need root, {@code /dev/net/tun} and iproute2, and are skipped (loudly) without.
 */
class TunAttachTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IbCmService cm;
    volatile IpoibClient client;
    TunAttachments tuns;
    final String tag = Long.toString(ProcessHandle.current().pid() % 100000, 36);
    final String nsA = "jrdma-tun-a-" + tag;
    final String nsB = "jrdma-tun-b-" + tag;
    final List<String> made = new ArrayList<>();

    @BeforeEach
    void up() throws InterruptedException {
        cm = new IbCmService(ib.core(), ib.mad());
        client = ToolRun.twoInterfacesUp(ib, cm);
        tuns = new TunAttachments(new IpoibInterfaces() { // follows the client across re-registration
            @Override
            public List<IpoibInterface> list() {
                return client.list();
            }

            @Override
            public Optional<IpoibInterface> get(String name) {
                return client.get(name);
            }
        });
    }

    @AfterEach
    void down() throws Exception {
        tuns.close();
        ib.core().unregisterClient(client);
        cm.close();
        for (String ns : made) {
            sh("ip", "netns", "del", ns);
        }
    }

    ToolRun ipoib(String... args) {
        return ToolRun.of((out, err) -> new IpoibTool(tuns, out, err).main(args));
    }

    @Test
    void refusalsNameTheReason() {
        assertEquals(2, ipoib("attach", "ib0").status());
        assertTrue(ipoib("frob").err().startsWith("Usage: ipoib attach IFACE tun NAME"));
        ToolRun none = ipoib("attach", "ib7", "tun", "t0");
        assertEquals(1, none.status());
        assertEquals("ipoib attach: Cannot find device \"ib7\"\n", none.err());
        ToolRun badName = ipoib("attach", "ib0", "tun", "a/b");
        assertEquals(1, badName.status());
        assertTrue(badName.err().contains("\"a/b\" is not a valid interface name"), badName.err());
        assertEquals(1, ipoib("attach", "ib0", "tun", "averyverylongname0").status());
        ToolRun badAddr = ipoib("attach", "ib0", "tun", "t0", "addr", "10.0.0.300/24");
        assertEquals(2, badAddr.status());
        assertEquals("ipoib attach: \"10.0.0.300/24\" is not an address/prefix\n", badAddr.err());
        ToolRun det = ipoib("detach", "t9");
        assertEquals(1, det.status());
        assertEquals("ipoib detach: t9 is not attached\n", det.err());
        assertEquals("", ipoib().out(), "nothing attached");
    }

    @Test
    void theHostsPingCrossesIpoibInDatagramAndConnectedMode() throws Exception {
        hostReady();
        attachBoth();
        ToolRun p = sh("ip", "netns", "exec", nsA, "ping", "-c", "5", "-i", "0.2", "-W", "5", "10.77.0.2");
        assertEquals(0, p.status(), p.out() + p.err());
        assertTrue(p.out().contains("5 packets transmitted, 5 received"), p.out());
        Attachment a = attachment("ib0");
        assertTrue(a.toIbPackets() >= 5 && a.toHostPackets() >= 5, a.toString());
        assertTrue(client.get("ib0").orElseThrow().stats().txPackets() >= 5, "ib0's counters moved");
        String show = ipoib("show").out();
        assertTrue(show.contains("jt0" + tag + " -> ib0 netns " + nsA + " addr 10.77.0.1/24 mtu 2044 carrier on"), show);

        for (String i : List.of("ib0", "ib1")) {
            assertEquals(0, ToolRun.of((out, err) -> new Ip(client, out, err)
                    .main(new String[] {"link", "set", i, "type", "ipoib", "mode", "connected"})).status());
        }
        await(() -> host(nsA, "ip", "link", "show", "jt0" + tag).out().contains(" mtu 65520 "),
                "the TUN device's MTU follows ib0 into connected mode");
        await(() -> host(nsB, "ip", "link", "show", "jt1" + tag).out().contains(" mtu 65520 "), "and jt1's");
        ToolRun big = sh("ip", "netns", "exec", nsA, "ping", "-c", "3", "-i", "0.2", "-W", "5", "-M", "do", "-s",
                "60000", "10.77.0.2");
        assertEquals(0, big.status(), big.out() + big.err());
        assertTrue(big.out().contains("60008 bytes from 10.77.0.2"), big.out());
        assertNotEquals(List.of(), client.get("ib0").orElseThrow().connections(), "60000-byte pings went by RC");

        assertEquals(0, ipoib("detach", "ib0").status());
        assertNotEquals(0, sh("ip", "-n", nsA, "link", "show", "jt0" + tag).status(), "the TUN device is gone");
        assertEquals(null, client.get("ib0").orElseThrow().receiver(), "ib0 has its receiver back");
        assertTrue(client.get("ib0").orElseThrow().addresses().stream()
                .noneMatch(x -> x.address() instanceof java.net.Inet4Address), "and its address removed");
    }

    @Test
    void unplugTurnsTheCarrierOffAndReplugBindsAgain() throws Exception {
        hostReady();
        attachBoth();
        assertEquals(0, sh("ip", "netns", "exec", nsA, "ping", "-c", "2", "-W", "5", "10.77.0.2").status());
        ib.core().unregisterClient(client);
        await(() -> !attachment("ib0").carrier(), "carrier off once ib0 is gone");
        await(() -> host(nsA, "ip", "link", "show", "jt0" + tag).out().contains("NO-CARRIER"),
                "the host sees NO-CARRIER");
        client = new IpoibClient(ib.sa(), cm);
        ib.core().registerClient(client);
        await(() -> attachment("ib0").carrier() && attachment("ib1").carrier(), "bound again to the new ib0/ib1");
        await(() -> client.get("ib0").map(i -> i.state() == org.jrdma.ulp.ipoib.OperState.UP).orElse(false)
                && client.get("ib1").map(i -> i.state() == org.jrdma.ulp.ipoib.OperState.UP).orElse(false), "up");
        ToolRun p = sh("ip", "netns", "exec", nsA, "ping", "-c", "3", "-i", "0.2", "-W", "5", "10.77.0.2");
        assertEquals(0, p.status(), p.out() + p.err());
        assertTrue(client.get("ib0").orElseThrow().addresses().toString().contains("10.77.0.1"), "address re-added");
    }

    private void attachBoth() throws IOException {
        for (String ns : List.of(nsA, nsB)) {
            sh("ip", "netns", "del", ns);
            assertEquals(0, sh("ip", "netns", "add", ns).status());
            made.add(ns);
        }
        ToolRun a = ipoib("attach", "ib0", "tun", "jt0" + tag, "netns", nsA, "addr", "10.77.0.1/24");
        assertEquals(0, a.status(), a.err());
        assertEquals("jt0" + tag + ": attached to ib0 netns " + nsA + " addr 10.77.0.1/24, mtu 2044\n", a.out());
        assertEquals(0, ipoib("attach", "ib1", "tun", "jt1" + tag, "netns", nsB, "addr", "10.77.0.2/24").status());
        ToolRun again = ipoib("attach", "ib0", "tun", "jt9" + tag);
        assertEquals(1, again.status());
        assertTrue(again.err().contains("ib0 is already attached to jt0" + tag), again.err());
    }

    /**
     * IPv6 through the host: the kernel's {@code ping -6} from namespace A to B's global address; the neighbour
     * discovery is jrdma's (the TUN device is NOARP), the kernel's own IPv6 packets (MLD reports, router
     * solicitations) are counted, never errors.
     */
    @Test
    void theHostsPing6CrossesIpoibWithJrdmasNeighbourDiscovery() throws Exception {
        hostReady();
        for (String ns : List.of(nsA, nsB)) {
            sh("ip", "netns", "del", ns);
            assertEquals(0, sh("ip", "netns", "add", ns).status());
            made.add(ns);
        }
        ToolRun a = ipoib("attach", "ib0", "tun", "jt0" + tag, "netns", nsA, "addr", "10.77.0.1/24", "addr",
                "2001:db8:77::1/64");
        assertEquals(0, a.status(), a.err());
        assertEquals("jt0" + tag + ": attached to ib0 netns " + nsA + " addr 10.77.0.1/24 addr 2001:db8:77::1/64, "
                + "mtu 2044\n", a.out());
        assertEquals(0, ipoib("attach", "ib1", "tun", "jt1" + tag, "netns", nsB, "addr", "2001:db8:77::2/64").status());
        assertTrue(host(nsA, "ip", "-6", "addr", "show", "dev", "jt0" + tag).out().contains("inet6 2001:db8:77::1/64"),
                "IPv6 is on in the namespace");
        ToolRun p = sh("ip", "netns", "exec", nsA, "ping", "-6", "-c", "3", "-i", "0.2", "-W", "5", "2001:db8:77::2");
        assertEquals(0, p.status(), p.out() + p.err());
        assertTrue(p.out().contains("3 packets transmitted, 3 received"), p.out());
        IpoibInterface ib0 = client.get("ib0").orElseThrow();
        IpoibInterface ib1 = client.get("ib1").orElseThrow();
        org.jrdma.ulp.ipoib.Neighbour n = ib0.neighbours().stream()
                .filter(x -> x.address().getHostAddress().equals("2001:db8:77:0:0:0:0:2")).findFirst().orElseThrow();
        assertEquals(org.jrdma.ulp.ipoib.Neighbour.State.REACHABLE, n.state());
        assertTrue(java.util.Arrays.equals(ib1.hwAddr(), n.lladdr()), "resolved by ND to ib1's address");
        for (IpoibInterface i : List.of(ib0, ib1)) {
            assertEquals(0, i.stats().txErrors() + i.stats().rxErrors(), i.name() + ": " + i.stats());
            assertTrue(List.of("tx_no_group", "tx_queue_full").containsAll(i.stats().drops().keySet()),
                    i.name() + ": only the kernel's multicast to groups nobody joined is dropped: " + i.stats());
        }
        assertEquals(0, ipoib("detach", "ib0").status());
        assertTrue(ib0.addresses().stream().noneMatch(x -> x.toString().startsWith("2001:db8:77::1")),
                "the IPv6 address left ib0 with the attachment: " + ib0.addresses());
    }

    private Attachment attachment(String ifName) {
        return tuns.list().stream().filter(t -> t.ifName().equals(ifName)).findFirst().orElseThrow();
    }

    private static void hostReady() throws IOException {
        boolean root = "0".equals(sh("id", "-u").out().strip());
        boolean tun = Files.exists(Path.of("/dev/net/tun"));
        boolean ip = sh("ip", "netns", "list").status() == 0;
        boolean ping = sh("ping", "-V").status() == 0;
        if (!(root && tun && ip && ping)) {
            System.err.println("SKIPPED TunAttachTest: needs root, /dev/net/tun, iproute2 and iputils' ping (root "
                    + root + ", tun " + tun + ", ip " + ip + ", ping " + ping + ")");
        }
        assumeTrue(root && tun && ip && ping, "TUN needs root, /dev/net/tun, iproute2 and ping");
    }

    private static ToolRun host(String ns, String... cmd) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(cmd));
        return sh(c.toArray(String[]::new));
    }

    static ToolRun sh(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new ToolRun(-1, "", "timed out: " + String.join(" ", cmd));
            }
            return new ToolRun(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8), "");
        } catch (IOException e) {
            return new ToolRun(-1, "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ToolRun(-1, "", "interrupted");
        }
    }

    private static void await(BooleanSupplier cond, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cond.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, what);
            Thread.sleep(20);
        }
    }
}
