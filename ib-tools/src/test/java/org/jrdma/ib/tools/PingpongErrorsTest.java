package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ways out of the tools other than success: the real tools' stderr texts and exit statuses,
 * and that every one of them releases everything (checked after each test by the fixture) and
 * closes its sockets.
 */
class PingpongErrorsTest extends LoopbackFixture {

    record Result(int status, String out, String err) {
    }

    Result run(String tool, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = PingpongTool.named(tool).run(core, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong", "ibv_srq_pingpong"})
    void unknownDevice(String tool) {
        Result r = run(tool, "-d", "foo");
        assertEquals(1, r.status);
        assertEquals("IB device foo not found\n", r.err);
        assertEquals("", r.out);
    }

    @Test
    void noDevice() {
        Result r = new PingpongErrorsTest.Runner(IbCore.newInstance()).run("ibv_rc_pingpong");
        assertEquals(1, r.status);
        assertEquals("No IB devices found\n", r.err);
    }

    /** For a registry other than the fixture's. */
    record Runner(IbCore core) {
        Result run(String tool, String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = PingpongTool.named(tool).run(core, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), args);
            return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong", "ibv_srq_pingpong"})
    void connectionRefused(String tool) {
        Result r = run(tool, "-d", "lo0", "-i", "2", "-p", p(), "127.0.0.1");
        assertEquals(1, r.status);
        assertEquals("Couldn't connect to 127.0.0.1:" + p() + "\n", r.err);
        assertTrue(r.out.startsWith("  local address:  LID "), r.out);
        assertTrue(dev.resources().isEmpty(), "rdma res: " + dev.resources());
    }

    @Test
    void unknownHost() {
        Result r = run("ibv_rc_pingpong", "-d", "lo0", "-p", p(), "no-such-host.invalid");
        assertEquals(1, r.status);
        assertEquals("Name or service not known for no-such-host.invalid:" + p() + "\n", r.err);
    }

    @Test
    void usageOnUnknownOption() {
        Result r = run("ibv_rc_pingpong", "-h");
        assertEquals(1, r.status);
        assertEquals("ibv_rc_pingpong: invalid option -- 'h'\n", r.err);
        List<String> lines = r.out.lines().toList();
        assertEquals("Usage:", lines.get(0));
        assertEquals("  ibv_rc_pingpong            start a server and wait for connection", lines.get(1));
        assertEquals("  ibv_rc_pingpong <host>     connect to server at <host>", lines.get(2));
        assertEquals("", lines.get(3));
        assertEquals("Options:", lines.get(4));
        assertEquals("  -p, --port=<port>      listen on/connect to port <port> (default 18515)", lines.get(5));
        assertEquals("  -N, --new_send            use new post send WR API", lines.get(lines.size() - 1));
        assertEquals(22, lines.size());
        assertTrue(r.out.contains("  -o, --odp\t\t    use on demand paging\n"));
    }

    @Test
    void usageTexts() {
        Result uc = run("ibv_uc_pingpong", "--bogus");
        assertEquals("ibv_uc_pingpong: unrecognized option '--bogus'\n", uc.err);
        assertTrue(uc.out.endsWith("  -c, --chk              validate received buffer\n"), uc.out);
        Result ud = run("ibv_ud_pingpong", "-m", "1024");
        assertEquals(1, ud.status);
        assertEquals("ibv_ud_pingpong: invalid option -- 'm'\n", ud.err, "ud_pingpong has no -m");
        assertTrue(ud.out.contains("  -s, --size=<size>      size of message to exchange (default 2048)\n"));
        assertTrue(ud.out.contains("  -l, --sl=<SL>          send messages with service level <SL> (default 0)\n"));
        Result srq = run("ibv_srq_pingpong", "-x");
        assertTrue(srq.out.contains("  -q, --num-qp=<num>     number of QPs to use (default 16)\n"));
        Result two = run("ibv_rc_pingpong", "a", "b");
        assertEquals(1, two.status);
        assertEquals("", two.err);
        assertTrue(two.out.startsWith("Usage:\n"));
    }

    @Test
    void badOptionValues() {
        assertEquals(1, run("ibv_rc_pingpong", "-p", "70000").status);
        assertEquals(1, run("ibv_rc_pingpong", "-i", "0").status);
        assertEquals(1, run("ibv_rc_pingpong", "-p").status);
        assertEquals("ibv_rc_pingpong: option requires an argument -- 'p'\n", run("ibv_rc_pingpong", "-p").err);
        assertEquals(1, run("ibv_srq_pingpong", "-s", "0").status);
        Result srq = run("ibv_srq_pingpong", "-q", "600", "-r", "500");
        assertEquals("rx_depth 500 is too small for 600 QPs -- must have at least one receive per QP.\n", srq.err);
        srq = run("ibv_srq_pingpong", "-q", "300", "-r", "1000");
        assertEquals("num_qp 300 must be less than 255\n", srq.err);
    }

    @Test
    void badIbPort() {
        Result r = run("ibv_rc_pingpong", "-d", "lo0", "-i", "3");
        assertEquals(1, r.status);
        assertEquals("Failed to modify QP to INIT\n", r.err);
        r = run("ibv_ud_pingpong", "-d", "lo0", "-i", "3");
        assertEquals("Unable to query port info for port 3\n", r.err);
        r = run("ibv_srq_pingpong", "-d", "lo0", "-i", "3", "-q", "2");
        assertEquals("Failed to modify QP[0] to INIT\n", r.err);
    }

    @Test
    void gidIndexOutOfTable() {
        assertEquals("can't read sgid of index 5\n", run("ibv_rc_pingpong", "-d", "lo0", "-g", "5").err);
        assertEquals("can't read sgid of index 1\n", run("ibv_uc_pingpong", "-d", "lo0", "-g", "1").err);
        assertEquals("Could not get local gid for gid index 5\n", run("ibv_ud_pingpong", "-d", "lo0", "-g", "5").err);
        assertEquals("Could not get local gid for gid index 5\n", run("ibv_srq_pingpong", "-d", "lo0", "-g", "5").err);
    }

    @Test
    void udSizeAboveMtu() {
        Result r = run("ibv_ud_pingpong", "-d", "lo0", "-s", "4097");
        assertEquals(1, r.status);
        assertEquals("Requested size larger than port MTU (4096)\n", r.err);
    }

    @Test
    void featuresTheVerbsApiDoesNotHave() {
        assertEquals("The device isn't ODP capable or does not support RC send and receive with ODP\n",
                run("ibv_rc_pingpong", "-d", "lo0", "-o").err);
        assertEquals("The device isn't ODP capable or does not support RC send and receive with ODP\n",
                run("ibv_rc_pingpong", "-d", "lo0", "-O").err);
        assertEquals("The device isn't completion timestamp capable\n", run("ibv_rc_pingpong", "-d", "lo0", "-t").err);
        assertEquals("Device doesn't support dm allocation\n", run("ibv_rc_pingpong", "-d", "lo0", "-j").err);
        assertEquals("DM memory region can't be on demand\n", run("ibv_rc_pingpong", "-o", "-j").err);
        assertEquals("prefetch is valid only with on-demand memory region\n", run("ibv_rc_pingpong", "-P").err);
        assertEquals("The device isn't ODP capable or does not support RC send, receive and srq with ODP\n",
                run("ibv_srq_pingpong", "-d", "lo0", "-o").err);
    }

    @Test
    void tooDeepForTheDevice() {
        // hw-loopback's max_qp_wr is 0x4000
        assertEquals("Couldn't create QP\n", run("ibv_rc_pingpong", "-d", "lo0", "-r", "20000").err);
    }

    @Test
    void listenPortTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(tcpPort)) {
            Result r = run("ibv_rc_pingpong", "-d", "lo0", "-p", p());
            assertEquals(1, r.status);
            assertEquals("Couldn't listen to port " + p() + "\n", r.err);
        }
    }

    /** Ctrl-C while the server waits for its client: 130, the port is free again, nothing left. */
    @Test
    void interruptWhileWaitingForClient() throws Exception {
        Side server = Side.server("ibv_ud_pingpong", core, "-d", "lo0", "-p", p());
        Thread.sleep(50);
        assertTrue(server.isAlive(), "the server waits for its client, as the real one does");
        assertEquals(PingpongTool.INTERRUPTED, server.kill());
        try (ServerSocket again = new ServerSocket(tcpPort, 1, InetAddress.getByName("0.0.0.0"))) {
            assertEquals(tcpPort, again.getLocalPort(), "the listening socket was closed");
        }
    }

    /** Ctrl-C in the middle of a long run, on both sides, busy polling and sleeping on events. */
    @ParameterizedTest
    @ValueSource(strings = {"-c", "-e"})
    void interruptDuringTheRun(String option) throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-n", "100000000", option, "-p", p());
        Side client = Side.start("ibv_rc_pingpong", core, "-d", "lo0", "-i", "2", "-n", "100000000", option, "-p", p(),
                "127.0.0.1");
        client.awaitOutLines(2);
        server.awaitOutLines(2);
        Thread.sleep(100);
        assertEquals(PingpongTool.INTERRUPTED, client.kill());
        assertEquals(PingpongTool.INTERRUPTED, server.kill());
    }

    /**
     * The peer dies in the middle of an RC run. If the survivor had a SEND outstanding, it is never
     * acknowledged and ends as the real tool does (timeout 14, retry_cnt 7: well under a second
     * here); if it was waiting to receive, it waits, as the real one does, until Ctrl-C.
     */
    @Test
    void peerGoneDuringRcRun() throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-n", "100000000", "-p", p());
        Side client = Side.start("ibv_rc_pingpong", core, "-d", "lo0", "-i", "2", "-n", "100000000", "-p", p(),
                "127.0.0.1");
        client.awaitOutLines(2);
        server.awaitOutLines(2);
        assertEquals(PingpongTool.INTERRUPTED, client.kill());
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (server.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (server.isAlive()) {
            assertEquals(PingpongTool.INTERRUPTED, server.kill(), "waited for a receive");
        } else {
            assertEquals(1, server.await(1));
            assertTrue(server.err().matches("Failed status transport retry counter exceeded \\(12\\) for wr_id 2\n"
                    + "parse WC failed [12]\n"), server.err());
        }
    }

    /**
     * The device goes away under a running pair (hot unplug): ib-core flushes and destroys what the
     * tools had (as uverbs does for a process), and both end by themselves with status 1.
     */
    @ParameterizedTest
    @ValueSource(strings = {"-c", "-e"})
    void deviceRemovedDuringTheRun(String option) throws Exception {
        LoopbackDevice lo1 = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
        String name = lo1.register(core.registrar()).device().name();
        try {
            Side server = Side.server("ibv_rc_pingpong", core, "-d", name, "-n", "100000000", option, "-p", p());
            Side client = Side.start("ibv_rc_pingpong", core, "-d", name, "-i", "2", "-n", "100000000", option, "-p",
                    p(), "127.0.0.1");
            client.awaitOutLines(2);
            server.awaitOutLines(2);
            Thread.sleep(50);
            UnregisterReport report = lo1.close();
            assertEquals(1, client.await(10), client.err());
            assertEquals(1, server.await(10), server.err());
            for (Side side : new Side[] {client, server}) {
                assertTrue(side.err().matches(
                        "(?s)(Failed status .*|poll CQ failed -\\d+|Failed to get cq_event|Couldn't request CQ notification|Couldn't post .*)\n"), side.err());
            }
            assertTrue(report.leaked().stream().allMatch(r -> r.owner().equals("ibv_rc_pingpong")), report.toString());
        } finally {
            lo1.close();
        }
    }

    /**
     * {@code -c} on the server only: the client's buffer is all 0x7b, so the first byte of every
     * page is wrong: the real tool's lines; unlike the real tool (which exits 0), a mismatch fails.
     */
    @Test
    void validationMismatchFails() throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-s", "10000", "-n", "5", "-c", "-p", p());
        Side client = Side.start("ibv_rc_pingpong", core, "-d", "lo0", "-i", "2", "-s", "10000", "-n", "5", "-p", p(),
                "127.0.0.1");
        assertEquals(0, client.await(30), client.err());
        assertEquals(1, server.await(30));
        List<String> lines = server.outLines();
        assertEquals(List.of("invalid data in page 0", "invalid data in page 1", "invalid data in page 2"),
                lines.subList(4, lines.size()));
        assertEquals("", server.err());
    }

    /** An invalid -m is let through by the real tool and refused by the kernel at RTR. */
    @Test
    void invalidMtuFailsAtRtr() throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-m", "1000", "-p", p());
        Side client = Side.start("ibv_rc_pingpong", core, "-d", "lo0", "-i", "2", "-p", p(), "127.0.0.1");
        assertEquals(1, server.await(30));
        assertEquals("Failed to modify QP to RTR\nCouldn't connect to remote QP\n", server.err());
        assertEquals(1, client.await(30));
        assertEquals("client read/write: Success\nCouldn't read/write remote address\n", client.err());
    }
}
