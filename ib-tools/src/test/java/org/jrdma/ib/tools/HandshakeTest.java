package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.Gid;
import org.junit.jupiter.api.Test;

/**
 * The TCP side channel byte for byte against what Linux's tools sent: the payloads captured from
 * rdma-core 44's {@code ibv_rc_pingpong -g 1 -n 3 -s 64} between two rxe devices
 * (handshakes.txt beside the captures, copied here; frames 4, 6, 8 of {@code rc_pingpong.pcap}), and the
 * address lines the real tools printed for them ({@code rc_pingpong.log}). A fake peer plays the
 * Linux side of the socket.
 */
class HandshakeTest extends LoopbackFixture {
    /** Frame 4, client (192.0.2.10) to server: 52 bytes. */
    static final byte[] CAPTURED_CLIENT = ascii("0000:00001b:3cea02:00000000000000000000ffffc000020a\0");
    /** Frame 6, server (192.0.2.11) to client: 52 bytes. */
    static final byte[] CAPTURED_SERVER = ascii("0000:00001b:01c9fa:00000000000000000000ffffc000020b\0");
    /** Frame 8, client to server: 5 bytes. */
    static final byte[] CAPTURED_DONE = ascii("done\0");

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] readN(InputStream in, int n) throws Exception {
        byte[] b = in.readNBytes(n);
        assertEquals(n, b.length, "bytes before EOF");
        return b;
    }

    @Test
    void capturedMessagesDecodeAndEncodeExactly() {
        Dest client = Dest.fromWire(CAPTURED_CLIENT);
        assertEquals(new Dest(0, 0x1b, 0x3cea02, Gid.parse("::ffff:192.0.2.10")), client);
        assertArrayEquals(CAPTURED_CLIENT, client.toWire());
        Dest server = Dest.fromWire(CAPTURED_SERVER);
        assertEquals(new Dest(0, 0x1b, 0x01c9fa, Gid.parse("::ffff:192.0.2.11")), server);
        assertArrayEquals(CAPTURED_SERVER, server.toWire());
        assertEquals(52, CAPTURED_CLIENT.length);
        assertEquals(Dest.MSG_SIZE, "0000:000000:000000:00000000000000000000000000000000".length() + 1);
        assertArrayEquals(CAPTURED_DONE, Dest.DONE);
        // the log lines of the real tools for these addresses
        assertEquals("LID 0x0000, QPN 0x00001b, PSN 0x3cea02", client.lidQpnPsn());
        assertEquals("::ffff:192.0.2.10", client.gidText());
        // an IB GID (subnet prefix + port GUID) in wire form
        Gid ib = Gid.of(0xfe80_0000_0000_0000L, 0x0002_c903_0000_0001L);
        assertEquals("fe800000000000000002c90300000001", Dest.wireGid(ib));
        assertEquals(ib, Dest.wireGidToGid("fe800000000000000002c90300000001"));
    }

    /**
     * Our client against a fake Linux server: what we send is the real format with our LID/QPN
     * and a zero GID (no -g); the server's captured answer is printed exactly as the real client
     * printed it; "done" follows and the socket is closed. The captured address is a RoCE one with
     * a GID, so without -g the QP cannot be connected: "Failed to modify QP to RTR", status 1.
     */
    @Test
    void clientAgainstCapturedServer() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[][]> peer = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept()) {
                    s.setSoTimeout(10_000);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] hello = readN(in, 52);
                    out.write(CAPTURED_SERVER);
                    out.flush();
                    byte[] done = readN(in, 5);
                    int eof = in.read();
                    return new byte[][] {hello, done, {(byte) eof}};
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Side client = Side.start("ibv_rc_pingpong", core, "-d", "lo0", "-i", "2", "-p",
                    Integer.toString(ss.getLocalPort()), "127.0.0.1");
            int status = client.await(30);
            byte[][] got = peer.get(10, TimeUnit.SECONDS);

            String hello = new String(got[0], StandardCharsets.US_ASCII);
            String expected = String.format(Locale.ROOT, "%04x:%06x:", lid(2), qpnOf(client.outLines().get(0)));
            assertTrue(hello.matches("[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:0{32}\0"), hello);
            assertTrue(hello.startsWith(expected), hello + " starts with " + expected);
            assertArrayEquals(CAPTURED_DONE, got[1]);
            assertEquals((byte) -1, got[2][0], "the client closed the socket after done");

            List<String> lines = client.outLines();
            assertEquals(2, lines.size(), client.out());
            assertEquals("  remote address: LID 0x0000, QPN 0x00001b, PSN 0x01c9fa, GID ::ffff:192.0.2.11", lines.get(1),
                    "as the real client printed it (rc_pingpong.log)");
            assertEquals(1, status);
            assertEquals("Failed to modify QP to RTR\n", client.err());
        }
    }

    static int qpnOf(String localLine) {
        int i = localLine.indexOf("QPN 0x");
        return Integer.parseInt(localLine.substring(i + 6, i + 12), 16);
    }

    /**
     * Our server against a fake Linux client sending the captured bytes. With {@code -g 0} the
     * GRH route to the captured GID is accepted, the server answers with its own address (IB LID,
     * GID[0] of the port) and reads "done"; then it waits for the first SEND forever, as the real
     * one would: Ctrl-C (an interrupt) ends it with 130 and releases everything.
     */
    @Test
    void serverAgainstCapturedClient() throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-i", "1", "-g", "0", "-p", p());
        byte[] answer;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), tcpPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(CAPTURED_CLIENT);
            answer = readN(s.getInputStream(), 52);
            s.getOutputStream().write(CAPTURED_DONE);
            assertEquals(-1, s.getInputStream().read(), "the server closed the socket after done");
        }
        server.awaitOutLines(2);
        List<String> lines = server.outLines();
        String wireGid = Dest.wireGid(dev.queryGid(1, 0));
        String a = new String(answer, StandardCharsets.US_ASCII);
        assertTrue(a.matches(String.format(Locale.ROOT, "%04x:%06x:[0-9a-f]{6}:%s\0", lid(1), qpnOf(lines.get(0)),
                wireGid)), a);
        assertEquals(String.format(Locale.ROOT, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%s, GID %s", lid(1),
                qpnOf(lines.get(0)), a.substring(12, 18), InetNtop.inetNtop6(dev.queryGid(1, 0).raw())), lines.get(0));
        assertEquals("  remote address: LID 0x0000, QPN 0x00001b, PSN 0x3cea02, GID ::ffff:192.0.2.10", lines.get(1),
                "as the real server printed it (rc_pingpong.log)");
        assertTrue(server.isAlive(), "waits for the first SEND");
        assertEquals(PingpongTool.INTERRUPTED, server.kill());
        assertEquals("", server.err());
    }

    /** Without -g, the same captured client cannot be routed (its GID asks for a GRH with sgid_index -1). */
    @Test
    void serverWithoutGidIndexRefusesGlobalPeer() throws Exception {
        Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-p", p());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), tcpPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(CAPTURED_CLIENT);
            assertEquals(-1, s.getInputStream().read(), "closed without an answer");
        }
        assertEquals(1, server.await(10));
        assertEquals("Failed to modify QP to RTR\nCouldn't connect to remote QP\n", server.err());
    }

    /** A client that hangs up early: the real server's messages, status 1. */
    @Test
    void serverShortRead() throws Exception {
        Side server = Side.server("ibv_ud_pingpong", core, "-d", "lo0", "-p", p());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), tcpPort)) {
            s.getOutputStream().write(Arrays.copyOf(CAPTURED_CLIENT, 20));
        }
        assertEquals(1, server.await(10));
        assertEquals("server read: Success\n20/52: Couldn't read remote address\n", server.err());
    }

    /** A server that closes without answering. */
    @Test
    void clientShortRead() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                try (Socket s = ss.accept()) {
                    readN(s.getInputStream(), 52);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Side client = Side.start("ibv_uc_pingpong", core, "-d", "lo0", "-p", Integer.toString(ss.getLocalPort()),
                    "127.0.0.1");
            assertEquals(1, client.await(10));
            peer.get(10, TimeUnit.SECONDS);
            assertEquals("client read/write: Success\nCouldn't read/write remote address\n", client.err());
        }
    }

    /** ibv_srq_pingpong always exchanges 256 messages each way, the unused ones zero. */
    @Test
    void srqSends256Messages() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> peer = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept()) {
                    s.setSoTimeout(10_000);
                    byte[] all = readN(s.getInputStream(), 256 * 52);
                    for (int i = 0; i < 256; i++) {
                        s.getOutputStream().write(CAPTURED_SERVER);
                    }
                    readN(s.getInputStream(), 5);
                    return all;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Side client = Side.start("ibv_srq_pingpong", core, "-d", "lo0", "-q", "2", "-p",
                    Integer.toString(ss.getLocalPort()), "127.0.0.1");
            assertEquals(1, client.await(30));
            byte[] all = peer.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 256; i++) {
                String m = new String(all, i * 52, 52, StandardCharsets.US_ASCII);
                if (i < 2) {
                    assertTrue(m.matches(String.format(Locale.ROOT, "%04x:[0-9a-f]{6}:[0-9a-f]{6}:0{32}\0", lid(1))), m);
                } else {
                    assertEquals("0000:000000:000000:" + "0".repeat(32) + "\0", m);
                }
            }
            assertEquals(2 + 2, client.outLines().size());
            assertEquals("Failed to modify QP[0] to RTR\n", client.err());
        }
    }

    /**
     * A hostile client on the side channel (what PingpongPeerFuzzTest does at random, here exactly): the server
     * ends by itself with status 1 and rdma-core's words, never waits for more than the message's 52 bytes, and
     * releases everything (the fixture checks {@code rdma res}).
     */
    @Test
    void serverGivenJunkEndsWithStatus1() throws Exception {
        byte[][] junk = {ascii("0000:0000"), ascii("zz:-0x:ffffffffffffffffff:\n".repeat(2)).clone()};
        String[] expected = {"server read: Success\n9/52: Couldn't read remote address\n",
                "Couldn't send/recv local address\n"};
        for (int i = 0; i < junk.length; i++) {
            Side server = Side.server("ibv_rc_pingpong", core, "-d", "lo0", "-i", "1", "-p", p());
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), tcpPort)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(Arrays.copyOf(junk[i], Math.min(junk[i].length, 52)));
                s.shutdownOutput(); // and no "done"
                s.getInputStream().readAllBytes();
            }
            assertEquals(1, server.await(10), server.tty());
            assertEquals(expected[i], server.err());
        }
    }
}
