package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;

import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.impl.IpoibClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** iputils' ping from ib0 to ib1, which answers as the kernel does while no receiver is attached. */
class PingTest {
    @RegisterExtension
    final ManagedIbFabric ib = new ManagedIbFabric();
    IpoibClient client;

    @BeforeEach
    void up() throws InterruptedException {
        client = ToolRun.twoInterfacesUp(ib);
        ToolRun.of((out, err) -> new Ip(client, out, err).main(new String[] {"addr", "add", "10.0.0.1/24", "dev", "ib0"}));
        ToolRun.of((out, err) -> new Ip(client, out, err).main(new String[] {"addr", "add", "10.0.0.2/24", "dev", "ib1"}));
    }

    @AfterEach
    void down() {
        ib.core().unregisterClient(client);
    }

    ToolRun ping(String... args) {
        return ToolRun.of((out, err) -> new Ping(client, out, err).main(args));
    }

    @Test
    void threeEchoesAnsweredByTheOtherInterface() {
        ToolRun r = ping("-c", "3", "-i", "0.01", "-I", "ib0", "10.0.0.2");
        assertEquals(0, r.status(), r.out() + r.err());
        String[] l = r.out().split("\n");
        assertEquals("PING 10.0.0.2 (10.0.0.2) from 10.0.0.1 ib0: 56(84) bytes of data.", l[0]);
        for (int seq = 1; seq <= 3; seq++) {
            assertTrue(Pattern.matches("64 bytes from 10\\.0\\.0\\.2: icmp_seq=" + seq + " ttl=64 time=[0-9.]+ ms",
                    l[seq]), l[seq]);
        }
        assertEquals("", l[4]);
        assertEquals("--- 10.0.0.2 ping statistics ---", l[5]);
        assertTrue(l[6].startsWith("3 packets transmitted, 3 received, 0% packet loss, time "), l[6]);
        assertTrue(Pattern.matches("rtt min/avg/max/mdev = [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms", l[7]), l[7]);
        assertNull(client.get("ib0").orElseThrow().receiver(), "ping gave the receiver back");
        long end = System.nanoTime() + 10_000_000_000L; // counted on ib1's thread, maybe just after ib0 has the reply
        while (client.get("ib1").orElseThrow().stats().txPackets() < 4 && System.nanoTime() < end) {
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
        assertEquals(3, client.get("ib1").orElseThrow().stats().txPackets() - 1, "3 echo replies and 1 ARP reply");
    }

    @Test
    void pingSixAnsweredOverGlobalAndLinkLocalAddresses() {
        for (String[] a : new String[][] {{"2001:db8::1/64", "ib0"}, {"2001:db8::2/64", "ib1"}}) {
            ToolRun.of((out, err) -> new Ip(client, out, err).main(new String[] {"addr", "add", a[0], "dev", a[1]}));
        }
        ToolRun r = ping("-6", "-c", "3", "-i", "0.01", "-I", "ib0", "2001:db8::2");
        assertEquals(0, r.status(), r.out() + r.err());
        String[] l = r.out().split("\n");
        assertEquals("PING 2001:db8::2(2001:db8::2) from 2001:db8::1 ib0: 56 data bytes", l[0]);
        for (int seq = 1; seq <= 3; seq++) {
            assertTrue(Pattern.matches("64 bytes from 2001:db8::2: icmp_seq=" + seq + " ttl=64 time=[0-9.]+ ms",
                    l[seq]), l[seq]);
        }
        assertEquals("--- 2001:db8::2 ping statistics ---", l[5]);
        assertTrue(l[6].startsWith("3 packets transmitted, 3 received, 0% packet loss"), l[6]);
        ToolRun ll = ping("-c", "1", "-I", "ib1", "fe80::6a72:646d:0:101");
        assertEquals(0, ll.status(), ll.out() + ll.err());
        assertTrue(ll.out().startsWith("PING fe80::6a72:646d:0:101(fe80::6a72:646d:0:101) from fe80::6a72:646d:0:201 "
                + "ib1: 56 data bytes\n64 bytes from fe80::6a72:646d:0:101: icmp_seq=1 ttl=64 "), ll.out());
        ToolRun four = ping("-4", "-c", "1", "2001:db8::2");
        assertEquals(2, four.status());
        assertEquals("ping: 2001:db8::2: Address family for hostname not supported\n", four.err());
    }

    @Test
    void theInterfaceComesFromTheRouteAndQuietPrintsOnlyTheSummary() {
        ToolRun r = ping("-q", "-c", "2", "-i", "0.01", "-s", "1000", "10.0.0.1");
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().startsWith("PING 10.0.0.1 (10.0.0.1) from 10.0.0.2 ib1: 1000(1028) bytes of data.\n\n"),
                r.out());
    }

    @Test
    void noAnswerIsStatusOneAndBadUseStatusTwo() {
        ToolRun r = ping("-c", "2", "-i", "0.01", "-W", "1", "10.0.0.99");
        assertEquals(1, r.status());
        assertTrue(r.out().contains("2 packets transmitted, 0 received, 100% packet loss, time "), r.out());
        assertEquals(2, ping().status());
        assertEquals("ping: usage error: Destination address required\n", ping().err());
        assertEquals("ping: SO_BINDTODEVICE ib9: No such device\n", ping("-I", "ib9", "10.0.0.2").err());
        assertEquals("ping: connect: Network is unreachable\n", ping("192.168.0.1").err());
    }

    /** Intervals and linger times as iputils' ping_strtod takes them: NaN and Infinity made a flood of echoes. */
    @Test
    void nonFiniteOrGarbageTimesAreRefused() {
        for (String i : new String[] {"NaN", "Infinity", "-Infinity", "1e300", "1d", "x", ""}) {
            ToolRun r = ping("-c", "1", "-i", i, "10.0.0.2");
            assertEquals(2, r.status(), i);
            assertEquals("ping: bad timing interval: " + i + "\n", r.err());
            r = ping("-c", "1", "-W", i, "10.0.0.2");
            assertEquals(2, r.status(), i);
            assertEquals("ping: bad linger time: " + i + "\n", r.err());
        }
        assertEquals("ping: bad linger time: 0\n", ping("-c", "1", "-W", "0", "10.0.0.2").err());
        ToolRun r = ping("-c", "1", "-i", "0x1p-4", "-W", "0.5", "10.0.0.2"); // hex floats, as strtod takes them
        assertEquals(0, r.status(), r.err());
    }

    /**
     * An interrupt (Ctrl-C, or the command's bundle stopping) ends ping with the statistics. They reach an output
     * that is an interruptible channel (Gogo's pipes are): the flag is set again only after the summary is written.
     */
    @Test
    void anInterruptPrintsTheStatisticsThroughAnInterruptibleChannel() throws Exception {
        java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (java.io.InputStream in = java.nio.channels.Channels.newInputStream(pipe.source())) {
                in.transferTo(got);
            } catch (java.io.IOException e) {
                // the pipe closed
            }
        });
        reader.start();
        int[] status = {-1};
        boolean[] flag = {false};
        Thread pinger = new Thread(() -> {
            java.io.PrintStream out = new java.io.PrintStream(java.nio.channels.Channels.newOutputStream(pipe.sink()), true);
            status[0] = new Ping(client, out, new StringBuilder()).main(new String[] {"-c", "1000", "-i", "0.05", "-I", "ib0", "10.0.0.2"});
            flag[0] = Thread.currentThread().isInterrupted();
            Thread.interrupted();
            out.close();
        });
        pinger.start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!got.toString().contains("icmp_seq=3 ") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        pinger.interrupt();
        pinger.join(60_000);
        reader.join(60_000);
        String out = got.toString();
        assertEquals(0, status[0], out);
        assertTrue(flag[0], "the interrupt flag is kept for the caller");
        assertTrue(out.contains("--- 10.0.0.2 ping statistics ---"), out);
        assertTrue(Pattern.compile("\\n\\d+ packets transmitted, \\d+ received").matcher(out).find(), out);
    }
}
