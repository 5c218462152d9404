package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Server and client of each tool in two threads over TCP 127.0.0.1, on the two ports of one
 * hw-loopback device: exit statuses, the exact output lines (numbers by pattern), and that each
 * side's "remote address" is the other side's "local address".
 */
class PingpongLoopbackTest extends LoopbackFixture {
    static final String HEX4 = "0x[0-9a-f]{4}";
    static final String HEX6 = "0x[0-9a-f]{6}";
    static final Pattern LOCAL = Pattern.compile("  local address:  LID (" + HEX4 + "), QPN (" + HEX6
            + "), PSN (" + HEX6 + ")(,|:) GID (.*)");
    static final Pattern REMOTE = Pattern.compile("  remote address: LID (" + HEX4 + "), QPN (" + HEX6
            + "), PSN (" + HEX6 + "), GID (.*)");
    static final String NUM = "(\\d+\\.\\d\\d|inf)";

    /** Runs a server on port 1 and a client on port 2 with the same options; returns {server, client}. */
    Side[] pingpong(String tool, String... opts) throws Exception {
        Side server = Side.server(tool, core, concat(opts, "-d", "lo0", "-i", "1", "-p", p()));
        Side client = Side.start(tool, core, concat(opts, "-d", "lo0", "-i", "2", "-p", p(), "127.0.0.1"));
        int cs = client.await(120);
        int ss = server.await(30);
        assertEquals(0, cs, "client status; out:\n" + client.out() + "err:\n" + client.err());
        assertEquals(0, ss, "server status; out:\n" + server.out() + "err:\n" + server.err());
        assertEquals("", client.err());
        assertEquals("", server.err());
        return new Side[] {server, client};
    }

    static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The 4 lines of one side (rc/uc/ud); checks them and returns the local and remote matchers. */
    Matcher[] checkSide(Side s, int port, boolean ud, long size, long iters) {
        return checkSide(s, port, ud, size, iters, "::");
    }

    Matcher[] checkSide(Side s, int port, boolean ud, long size, long iters, String gid) {
        List<String> lines = s.outLines();
        assertEquals(4, lines.size(), s.out());
        Matcher local = LOCAL.matcher(lines.get(0));
        assertTrue(local.matches(), lines.get(0));
        assertEquals(ud ? ":" : ",", local.group(4), "ud_pingpong.c prints 'PSN 0x...: GID'");
        assertEquals(String.format(Locale.ROOT, "0x%04x", lid(port)), local.group(1));
        assertEquals(gid, local.group(5), "the GID of -g, else zero");
        Matcher remote = REMOTE.matcher(lines.get(1));
        assertTrue(remote.matches(), lines.get(1));
        assertTrue(lines.get(2).matches(size * iters * 2 + " bytes in " + NUM + " seconds = " + NUM + " Mbit/sec"),
                lines.get(2));
        assertTrue(lines.get(3).matches(iters + " iters in " + NUM + " seconds = " + NUM + " usec/iter"), lines.get(3));
        return new Matcher[] {local, remote};
    }

    void checkPair(Side[] sides, boolean ud, long size, long iters) {
        Matcher[] s = checkSide(sides[0], 1, ud, size, iters);
        Matcher[] c = checkSide(sides[1], 2, ud, size, iters);
        for (int g = 1; g <= 3; g++) {
            assertEquals(s[0].group(g), c[1].group(g), "the client's remote address is the server's local one");
            assertEquals(c[0].group(g), s[1].group(g), "the server's remote address is the client's local one");
        }
    }

    @Test
    void rc4096WithValidation() throws Exception {
        checkPair(pingpong("ibv_rc_pingpong", "-s", "4096", "-n", "1000", "-c"), false, 4096, 1000);
    }

    @Test
    void rc65536WithValidation() throws Exception {
        // 64 messages of MTU 1024 each way per exchange on a real device
        checkPair(pingpong("ibv_rc_pingpong", "-s", "65536", "-n", "1000", "-c"), false, 65536, 1000);
    }

    @Test
    void rcDefaults() throws Exception {
        checkPair(pingpong("ibv_rc_pingpong"), false, 4096, 1000);
    }

    @Test
    void rcWithCompletionEvents() throws Exception {
        checkPair(pingpong("ibv_rc_pingpong", "-e", "-n", "500", "-c"), false, 4096, 500);
    }

    @Test
    void rcSmallMessagesInlineAndOddSizes() throws Exception {
        checkPair(pingpong("ibv_rc_pingpong", "-s", "64", "-n", "3", "-c"), false, 64, 3);
    }

    @Test
    void rcWithMtuAndNewSendApi() throws Exception {
        checkPair(pingpong("ibv_rc_pingpong", "-m", "4096", "-N", "-s", "10000", "-n", "200", "-c", "-r", "10"),
                false, 10000, 200);
    }

    /** With -g 0 both sides send their port's GID[0] and route with a GRH (is_global), as across subnets. */
    @Test
    void withGidIndexAndGrh() throws Exception {
        for (String tool : new String[] {"ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong"}) {
            tcpPort = Side.freePort();
            Side[] sides = pingpong(tool, "-g", "0", "-n", "100", "-c", "-s", "1024");
            String g1 = InetNtop.inetNtop6(dev.queryGid(1, 0).raw());
            String g2 = InetNtop.inetNtop6(dev.queryGid(2, 0).raw());
            assertTrue(g1.startsWith("fe80::"), g1);
            boolean ud = tool.contains("ud");
            Matcher[] s = checkSide(sides[0], 1, ud, 1024, 100, g1);
            Matcher[] c = checkSide(sides[1], 2, ud, 1024, 100, g2);
            assertEquals(g2, s[1].group(4));
            assertEquals(g1, c[1].group(4));
        }
    }

    /** No exchange at all: the client's first SEND is still posted, and flushed when its QP goes. */
    @Test
    void zeroIterations() throws Exception {
        Side[] sides = pingpong("ibv_rc_pingpong", "-n", "0");
        for (Side s : sides) {
            List<String> lines = s.outLines();
            assertTrue(lines.get(2).matches("0 bytes in " + NUM + " seconds = (0.00|-nan) Mbit/sec"), lines.get(2));
            assertTrue(lines.get(3).matches("0 iters in " + NUM + " seconds = (inf|-nan) usec/iter"), lines.get(3));
        }
    }

    @Test
    void uc() throws Exception {
        checkPair(pingpong("ibv_uc_pingpong", "-s", "4096", "-n", "1000", "-c"), false, 4096, 1000);
    }

    @Test
    void ucWithEvents() throws Exception {
        checkPair(pingpong("ibv_uc_pingpong", "-e", "-s", "8192", "-n", "300", "-c"), false, 8192, 300);
    }

    @Test
    void ud2048() throws Exception {
        checkPair(pingpong("ibv_ud_pingpong", "-s", "2048", "-n", "1000", "-c"), true, 2048, 1000);
    }

    @Test
    void udDefaultSizeIs1024AndFullMtuFits() throws Exception {
        checkPair(pingpong("ibv_ud_pingpong", "-n", "10"), true, 1024, 10);
        tcpPort = Side.freePort();
        // the rule is size <= the port's active MTU (4096 on hw-loopback): the 40 GRH bytes come on top
        checkPair(pingpong("ibv_ud_pingpong", "-s", "4096", "-n", "10", "-c", "-e"), true, 4096, 10);
    }

    @Test
    void srq() throws Exception {
        Side[] sides = pingpong("ibv_srq_pingpong", "-n", "1000", "-c");
        for (int i = 0; i < 2; i++) {
            List<String> lines = sides[i].outLines();
            assertEquals(16 + 16 + 2, lines.size(), sides[i].out());
            for (int q = 0; q < 16; q++) {
                assertTrue(LOCAL.matcher(lines.get(q)).matches(), lines.get(q));
                assertTrue(REMOTE.matcher(lines.get(16 + q)).matches(), lines.get(16 + q));
            }
            assertTrue(lines.get(32).matches(4096L * 1000 * 2 + " bytes in " + NUM + " seconds = " + NUM + " Mbit/sec"));
            assertTrue(lines.get(33).matches("1000 iters in " + NUM + " seconds = " + NUM + " usec/iter"));
        }
        for (int q = 0; q < 16; q++) {
            Matcher sl = LOCAL.matcher(sides[0].outLines().get(q));
            Matcher cr = REMOTE.matcher(sides[1].outLines().get(16 + q));
            assertTrue(sl.matches() && cr.matches());
            assertEquals(sl.group(2), cr.group(2));
            assertEquals(sl.group(3), cr.group(3));
        }
    }

    @Test
    void srqFewQpsWithEvents() throws Exception {
        Side[] sides = pingpong("ibv_srq_pingpong", "-q", "3", "-r", "20", "-n", "300", "-e", "-s", "5000", "-c");
        assertEquals(3 + 3 + 2, sides[0].outLines().size());
        assertEquals(3 + 3 + 2, sides[1].outLines().size());
    }
}
