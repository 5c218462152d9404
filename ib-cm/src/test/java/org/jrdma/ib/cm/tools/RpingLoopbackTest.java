package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.jrdma.testsupport.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** rping client and server on two threads over the loopback CM: output, statuses, ends. */
@Timeout(60)
class RpingLoopbackTest extends RpingFixture {

    /** The session of vectors/roce/rping.log, replayed: the same lines on each side. */
    @Test
    void theLinuxSessionOfTheCapture() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-C", "3", "-S", "64", "-v");
        Side c = client("-c", "-I", CLIENT_IP, "-a", SERVER_IP, "-C", "3", "-S", "64", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());

        List<String> log = Files.readAllLines(TestVectors.path("roce/rping.log"), StandardCharsets.ISO_8859_1);
        int si = log.indexOf("# --- server output");
        int ci = log.indexOf("# --- client output");
        List<String> serverLines = log.subList(si + 1, ci);
        List<String> clientLines = log.subList(ci + 1, log.size());
        // the log shows stderr first (stdout was a pipe, flushed at exit)
        assertEquals(String.join("\n", linesOf(s.err(), s.out())), String.join("\n", serverLines));
        assertEquals(String.join("\n", linesOf(c.err(), c.out())), String.join("\n", clientLines));
        assertEquals("server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10\n", s.err());
        assertEquals("client DISCONNECT EVENT...\n", c.err());
    }

    private static List<String> linesOf(String err, String out) {
        List<String> l = new ArrayList<>();
        for (String x : (err + out).split("\n")) {
            if (!x.isEmpty()) {
                l.add(x);
            }
        }
        return l;
    }

    @Test
    void tenValidatedPingsOf4k() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-C", "10", "-S", "4096", "-V", "-v");
        Side c = client("-c", "-a", SERVER_IP, "-I", CLIENT_IP, "-C", "10", "-S", "4096", "-V", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        StringBuilder co = new StringBuilder();
        StringBuilder so = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            co.append("ping data: ").append(pingString(i, 4096)).append('\n');
            so.append("server ping data: ").append(pingString(i, 4096)).append('\n');
        }
        assertEquals(co.toString(), c.out());
        assertEquals(so.toString(), s.out());
        assertEquals("client DISCONNECT EVENT...\n", c.err());
        assertEquals("server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10\n", s.err());
    }

    @Test
    void thePatternWrapsAfterLowercaseZ() throws Exception {
        Side s = server("-s", "-a", SERVER_IP);
        Side c = client("-c", "-a", SERVER_IP, "-C", "60", "-V", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        String[] lines = c.out().split("\n");
        assertEquals(60, lines.length);
        // ping 57 starts at 'z', ping 58 at 'A' again; 64 bytes: 63 characters
        assertEquals("ping data: rdma-ping-57: zABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnop", lines[57]);
        assertEquals("ping data: rdma-ping-58: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopq", lines[58]);
        assertEquals("", s.out(), "no -v on the server");
    }

    /** rping.c's server loops until the client disconnects: its -C is not used. */
    @Test
    void theServerIgnoresItsCount() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-C", "2", "-v");
        Side c = client("-c", "-a", SERVER_IP, "-C", "5");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        assertEquals(5, s.out().split("\n").length, s.out());
        assertEquals("", c.out());
    }

    @Test
    void sizesOfTheTwoSidesMayDifferDownward() throws Exception {
        // the server reads the client's size into its own buffer: a smaller client works
        Side s = server("-s", "-a", SERVER_IP, "-S", "128", "-v");
        Side c = client("-c", "-a", SERVER_IP, "-C", "2", "-S", "30", "-V", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        assertEquals("ping data: " + pingString(0, 30) + "\nping data: " + pingString(1, 30) + "\n", c.out());
        assertEquals("server ping data: " + pingString(0, 30) + "\nserver ping data: " + pingString(1, 30) + "\n",
                s.out());
    }

    @Test
    void aLargerClientFailsTheServersRead() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-S", "64");
        Side c = client("-c", "-a", SERVER_IP, "-C", "1", "-S", "128");
        assertEquals(255, s.await(20));
        assertTrue(Pattern.compile("^cq completion failed status \\d+\nwait for RDMA_READ_COMPLETE state 11\n"
                + "rping server failed: -1\n").matcher(s.err()).find(), s.err());
        int cs = c.await(20);
        // the client sees the connection go: a clean end, as rping.c
        assertEquals(0, cs, c.err());
        assertTrue(Pattern.compile("client DISCONNECT EVENT...\nwait for RDMA_WRITE_ADV state 10\n").matcher(c.err())
                .find(), c.err());
    }

    @Test
    void noListenerIsRejected() throws Exception {
        Side c = client("-c", "-a", SERVER_IP, "-C", "1");
        assertEquals(255, c.await(20));
        assertEquals("cma event RDMA_CM_EVENT_REJECTED, error 8\nwait for CONNECTED state 4\nconnect error -1\n",
                c.err());
        assertEquals("", c.out());
    }

    @Test
    void anUnknownAddressFailsResolution() throws Exception {
        Side c = client("-c", "-a", "10.9.9.9", "-C", "1");
        assertEquals(255, c.await(20));
        assertEquals("cma event RDMA_CM_EVENT_ADDR_ERROR, error -110\n"
                + "waiting for addr/route resolution state 1\n", c.err());
    }

    @Test
    void aSecondServerOnThePortFailsToBind() throws Exception {
        Side s = server("-s", "-a", SERVER_IP);
        Side s2 = new Side(cm, "second", "-s", "-a", SERVER_IP);
        assertEquals(255, s2.await(20));
        assertTrue(s2.err().startsWith("rdma_bind_addr: "), s2.err());
        s.interrupt();
        assertEquals(Rping.INTERRUPTED, s.await(20));
    }

    @Test
    void anotherPortWorks() throws Exception {
        Side s = new Side(cm, "server", "-s", "-a", SERVER_IP, "-p", "9999", "-v");
        awaitListening(s, SERVER_IP, 9999);
        Side c = client("-c", "-a", SERVER_IP, "-p", "9999", "-C", "1", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        assertEquals("ping data: " + pingString(0, 64) + "\n", c.out());
    }

    /** The client's thread is interrupted (Ctrl-C) mid-run: it disconnects, the server sees the DREQ and ends as rping does. */
    @Test
    void anInterruptedClientEndsBothSides() throws Exception {
        Side s = server("-s", "-a", SERVER_IP, "-v");
        Side c = client("-c", "-a", SERVER_IP, "-v");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (c.out().split("\n").length < 20 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        c.interrupt();
        assertEquals(Rping.INTERRUPTED, c.await(20));
        int status = s.await(20);
        if (status == 0) {
            assertTrue(Pattern.matches("server DISCONNECT EVENT\\.\\.\\.\nwait for RDMA_[A-Z_]+ state 10\n", s.err()),
                    s.err());
        } else {
            // rping.c's race, as in anInterruptedServerEndsTheClient: the disconnect lands between two
            // pings and the server's wait fails in the state the loop set
            assertEquals(255, status, s.err());
            assertTrue(s.err().startsWith("server DISCONNECT EVENT...\n"), s.err());
            assertTrue(s.err().contains("rping server failed"), s.err());
        }
    }

    /** The server is interrupted while the client pings forever: the client sees the disconnect and ends. */
    @Test
    void anInterruptedServerEndsTheClient() throws Exception {
        Side s = server("-s", "-a", SERVER_IP);
        Side c = client("-c", "-a", SERVER_IP, "-v");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (c.out().split("\n").length < 20 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        s.interrupt();
        assertEquals(Rping.INTERRUPTED, s.await(20));
        // rping.c's race: DISCONNECTED may come while the client is between pings, and the loop's
        // "state = RDMA_READ_ADV" overwrites it; then the wait fails with that state and status 255
        int status = c.await(20);
        if (status == 0) {
            assertTrue(Pattern.matches("client DISCONNECT EVENT\\.\\.\\.\nwait for RDMA_[A-Z_]+ state 10\n", c.err()),
                    c.err());
        } else {
            assertEquals(255, status);
            assertEquals("client DISCONNECT EVENT...\nwait for RDMA_WRITE_ADV state 6\nrping client failed: -1\n",
                    c.err());
        }
    }

    @Test
    void aServerWaitingForAClientIsInterrupted() throws Exception {
        Side s = server("-s", "-a", SERVER_IP);
        s.interrupt();
        assertEquals(Rping.INTERRUPTED, s.await(20));
        assertEquals("", s.err());
        // the port is free again
        Side again = server("-s", "-a", SERVER_IP);
        again.interrupt();
        assertEquals(Rping.INTERRUPTED, again.await(20));
    }

    @Test
    void aPersistentServerServesClientsOneAfterTheOther() throws Exception {
        Side s = server("-s", "-P", "-a", SERVER_IP, "-v");
        for (int i = 0; i < 3; i++) {
            Side c = client("-c", "-a", SERVER_IP, "-C", "2", "-V", "-v");
            assertEquals(0, c.await(20), c.err());
            assertEquals("ping data: " + pingString(0, 64) + "\nping data: " + pingString(1, 64) + "\n", c.out());
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (s.out().split("\n").length < 6 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(6, s.out().split("\n").length, s.out());
        s.interrupt();
        assertEquals(Rping.INTERRUPTED, s.await(20));
    }

    @Test
    void aPersistentServerServesClientsAtOnce() throws Exception {
        Side s = server("-s", "-P", "-a", SERVER_IP);
        Side c1 = client("-c", "-a", SERVER_IP, "-C", "50", "-V");
        Side c2 = client("-c", "-a", SERVER_IP, "-C", "50", "-V");
        assertEquals(0, c1.await(20), c1.err());
        assertEquals(0, c2.await(20), c2.err());
        s.interrupt();
        assertEquals(Rping.INTERRUPTED, s.await(20));
    }

    @Test
    void debugLinesGoToStdout() throws Exception {
        Side s = server("-d", "-s", "-a", SERVER_IP);
        Side c = client("-d", "-c", "-a", SERVER_IP, "-C", "1", "-S", "32", "-v");
        assertEquals(0, c.await(20), c.err());
        assertEquals(0, s.await(20), s.err());
        String p = "0x[0-9a-f]+";
        // each thread's lines come in its order; the threads' lines interleave as they do in C
        assertInOrder(c.out(), // main thread
                "client",
                "count 1",
                "size 32",
                "verbose",
                "created cm_id " + p,
                "rdma_resolve_addr - rdma_resolve_route successful",
                "created pd " + p,
                "created channel " + p,
                "created cq " + p,
                "created qp " + p,
                "rping_setup_buffers called on cb " + p,
                "allocated & registered buffers...",
                "rdma_connect successful",
                "RDMA addr [0-9a-f]+ rkey [0-9a-f]+ len 32",
                "RDMA addr [0-9a-f]+ rkey [0-9a-f]+ len 32",
                "ping data: " + Pattern.quote(pingString(0, 32)),
                "destroy cm_id " + p);
        assertInOrder(c.out(), // CM thread
                "cma_event type RDMA_CM_EVENT_ADDR_RESOLVED cma_id " + p + " \\(parent\\)",
                "cma_event type RDMA_CM_EVENT_ROUTE_RESOLVED cma_id " + p + " \\(parent\\)",
                "cma_event type RDMA_CM_EVENT_ESTABLISHED cma_id " + p + " \\(parent\\)",
                "ESTABLISHED",
                "cma_event type RDMA_CM_EVENT_DISCONNECTED cma_id " + p + " \\(parent\\)");
        assertInOrder(c.out(), // CQ thread
                "cq_thread started\\.",
                "recv completion", // the go-ahead after the READ (its SEND's completion may come before or after)
                "recv completion");
        assertInOrder(s.out(), // main thread
                "server",
                "created cm_id " + p,
                "rdma_bind_addr successful",
                "rdma_listen",
                "created pd " + p,
                "created channel " + p,
                "created cq " + p,
                "created qp " + p,
                "rping_setup_buffers called on cb " + p,
                "allocated & registered buffers...",
                "accepting client connection request",
                "server received sink adv",
                "server posted rdma read req ",
                "server received read complete",
                "server posted go ahead",
                "server received sink adv",
                "rdma write from lkey [0-9a-f]+ laddr [0-9a-f]+ len 32",
                "server rdma write complete ",
                "destroy cm_id " + p);
        assertInOrder(s.out(), // CM thread
                "cma_event type RDMA_CM_EVENT_CONNECT_REQUEST cma_id " + p + " \\(child\\)",
                "child cma " + p,
                "cma_event type RDMA_CM_EVENT_ESTABLISHED cma_id " + p + " \\(child\\)",
                "ESTABLISHED",
                "cma_event type RDMA_CM_EVENT_DISCONNECTED cma_id " + p + " \\(child\\)");
        assertInOrder(s.out(), // CQ thread
                "cq_thread started\\.",
                "recv completion",
                "Received rkey [0-9a-f]+ addr [0-9a-f]+ len 32 from peer",
                "rdma read completion",
                "recv completion",
                "Received rkey [0-9a-f]+ addr [0-9a-f]+ len 32 from peer",
                "rdma write completion");
    }

    private static void assertInOrder(String out, String... patterns) {
        String[] lines = out.split("\n", -1);
        int at = 0;
        for (String p : patterns) {
            Pattern re = Pattern.compile(p);
            while (at < lines.length && !re.matcher(lines[at]).matches()) {
                at++;
            }
            assertTrue(at < lines.length, "no line /" + p + "/ in order in:\n" + out);
            at++;
        }
    }
}
