package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.testsupport.TestVectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP side channel against Linux perftest 4.5's, as captured in {@code vectors/roce/handshakes.txt}:
 * a jrdma server and client talk through a recording proxy, and the sequence of messages (direction and
 * length) must be the capture's, message for message, with the version, page size, cache line and key
 * records in the same bytes or format. The key record codec is checked on the captured records.
 */
class HandshakeTest {
    IbCore core;
    LoopbackDevice lo;
    IbDevice dev;

    @BeforeEach
    void setUp() {
        core = IbCore.newInstance();
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
        dev = lo.register(core.registrar()).device();
    }

    @AfterEach
    void tearDown() {
        lo.close();
    }

    record Msg(boolean fromClient, byte[] data) {
        String tag() {
            return (fromClient ? "C>" : "S>") + data.length;
        }
    }

    /** The messages of one capture in handshakes.txt, decoded from the Python bytes literals. */
    static List<Msg> capture(String name) throws IOException {
        List<String> lines = Files.readAllLines(TestVectors.path("roce/handshakes.txt"));
        List<Msg> msgs = new ArrayList<>();
        boolean in = false;
        Pattern p = Pattern.compile("\\s*\\d+ \\S+:(\\d+) -> \\S+:(\\d+) len=(\\d+)\\s+b'(.*)'$");
        for (String l : lines) {
            if (l.startsWith("== ")) {
                in = l.startsWith("== " + name + ".pcap");
                continue;
            }
            Matcher m = p.matcher(l);
            if (in && m.matches()) {
                byte[] d = pyBytes(m.group(4));
                assertEquals(Integer.parseInt(m.group(3)), d.length, l);
                msgs.add(new Msg(m.group(2).equals("18515"), d));
            }
        }
        return msgs;
    }

    static byte[] pyBytes(String s) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                char n = s.charAt(++i);
                switch (n) {
                    case 'x' -> {
                        o.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                        i += 2;
                    }
                    case 'n' -> o.write('\n');
                    case 'r' -> o.write('\r');
                    case 't' -> o.write('\t');
                    default -> o.write(n);
                }
            } else {
                o.write(c);
            }
        }
        return o.toByteArray();
    }

    /** Forwards one TCP connection and records every chunk with its direction. */
    static final class Proxy implements AutoCloseable {
        final ServerSocket listen;
        final List<Msg> chunks = Collections.synchronizedList(new ArrayList<>());
        final Thread thread;

        Proxy(int target) throws IOException {
            listen = new ServerSocket();
            listen.bind(new InetSocketAddress("127.0.0.1", 0));
            thread = new Thread(() -> {
                try (Socket c = listen.accept(); Socket s = new Socket("127.0.0.1", target)) {
                    Thread t = pump(s, c, false);
                    pump(c, s, true).join();
                    t.join();
                } catch (IOException | InterruptedException e) {
                    // the test looks at what was recorded
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        Thread pump(Socket from, Socket to, boolean fromClient) {
            Thread t = new Thread(() -> {
                byte[] b = new byte[65536];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(b)) > 0) {
                        synchronized (chunks) {
                            chunks.add(new Msg(fromClient, java.util.Arrays.copyOf(b, n)));
                        }
                        out.write(b, 0, n);
                        out.flush();
                    }
                    to.shutdownOutput();
                } catch (IOException e) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
            return t;
        }

        int port() {
            return listen.getLocalPort();
        }

        /** Consecutive chunks of one direction are one message (a write may arrive in pieces). */
        List<Msg> messages() {
            List<Msg> r = new ArrayList<>();
            synchronized (chunks) {
                List<Msg> split = new ArrayList<>();
                for (Msg m : chunks) {
                    int n = m.data.length;
                    if (n > 5 && new String(m.data, n - 5, 5, StandardCharsets.US_ASCII).equals("done\0")) {
                        split.add(new Msg(m.fromClient, java.util.Arrays.copyOf(m.data, n - 5)));
                        split.add(new Msg(m.fromClient, java.util.Arrays.copyOfRange(m.data, n - 5, n)));
                    } else {
                        split.add(m);
                    }
                }
                for (Msg m : split) {
                    if (!r.isEmpty() && r.get(r.size() - 1).fromClient == m.fromClient
                            && !new String(m.data, StandardCharsets.US_ASCII).startsWith("done")) {
                        Msg last = r.remove(r.size() - 1);
                        byte[] j = java.util.Arrays.copyOf(last.data, last.data.length + m.data.length);
                        System.arraycopy(m.data, 0, j, last.data.length, m.data.length);
                        r.add(new Msg(m.fromClient, j));
                    } else {
                        r.add(m);
                    }
                }
            }
            return r;
        }

        @Override
        public void close() throws IOException {
            listen.close();
        }
    }

    static final Pattern KEY_GID = Pattern.compile(
            "[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{8}:[0-9a-f]{16}:([0-9a-f]{2}:){16}[0-9a-f]{8}:\0");

    List<Msg> runThroughProxy(String tool, String... extra) throws Exception {
        int port = Side.freePort();
        String[] s = LoopbackTest.concat(new String[] {"-d", dev.name(), "-i", "1", "-x", "0", "-p", Integer.toString(port)}, extra);
        Side server = Side.server(tool, core, null, s);
        try (Proxy proxy = new Proxy(port)) {
            String[] c = LoopbackTest.concat(LoopbackTest.concat(new String[] {"-d", dev.name(), "-i", "2", "-x", "0", "-p",
                    Integer.toString(proxy.port())}, extra), new String[] {"127.0.0.1"});
            Side client = Side.start(tool, core, null, c);
            assertEquals(0, client.await(60), client.err());
            assertEquals(0, server.await(60), server.err());
            proxy.thread.join(5000);
            return proxy.messages();
        }
    }

    void compare(String captureName, String tool, String... extra) throws Exception {
        List<Msg> want = capture(captureName);
        List<Msg> got = runThroughProxy(tool, extra);
        List<String> wantTags = want.stream().map(Msg::tag).toList();
        List<String> gotTags = got.stream().map(Msg::tag).toList();
        // the two "done" messages race in both implementations: compare them as a set
        assertEquals(normalize(wantTags), normalize(gotTags), captureName);
        for (int i = 0; i < got.size(); i++) {
            Msg w = want.get(i);
            Msg g = got.get(i);
            switch (w.data.length) {
                case 16, 4, 5 -> assertArrayEquals(w.data, g.data, captureName + " message " + i);
                case 2 -> assertTrue(g.data[0] >= '1' && g.data[0] <= '5' && g.data[1] == 0, "MTU enum as %d");
                case 108 -> assertTrue(KEY_GID.matcher(new String(g.data, StandardCharsets.US_ASCII)).matches(),
                        new String(g.data, StandardCharsets.US_ASCII));
                default -> {
                }
            }
        }
    }

    static List<String> normalize(List<String> tags) {
        List<String> r = new ArrayList<>(tags);
        if (r.size() >= 2 && r.get(r.size() - 1).endsWith(">5") && r.get(r.size() - 2).endsWith(">5")) {
            r.set(r.size() - 1, "done");
            r.set(r.size() - 2, "done");
        }
        return r;
    }

    @Test
    void writeBwAsCaptured() throws Exception {
        compare("write_bw_64", "ib_write_bw", "-n", "5", "-s", "64");
    }

    @Test
    void readBwAsCaptured() throws Exception {
        compare("read_bw_16k", "ib_read_bw", "-n", "5", "-s", "16384");
    }

    @Test
    void sendBwAsCaptured() throws Exception {
        compare("send_bw", "ib_send_bw", "-n", "5", "-s", "64");
    }

    @Test
    void atomicBwAsCaptured() throws Exception {
        compare("atomic_fadd", "ib_atomic_bw", "-n", "5", "-A", "FETCH_AND_ADD");
        compare("atomic_cas", "ib_atomic_bw", "-n", "5", "-A", "CMP_AND_SWAP");
    }

    @Test
    void sendLatAsCaptured() throws Exception {
        compare("send_lat", "ib_send_lat", "-n", "5", "-s", "64");
    }

    @Test
    void writeLatAsCaptured() throws Exception {
        compare("write_lat", "ib_write_lat", "-n", "5", "-s", "64");
    }

    @Test
    void bwReportsAreBigEndian() throws Exception {
        List<Msg> got = runThroughProxy("ib_write_bw", "-n", "5", "-s", "64");
        // after the four key exchanges: size (8 bytes, 64), iterations (8 bytes, 5), then three doubles
        int i = 0;
        while (got.get(i).data.length != 8) {
            i++;
        }
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 64}, got.get(i).data);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 5}, got.get(i + 2).data);
    }

    @Test
    void keyRecordsOfTheCapture() throws Exception {
        for (Msg m : capture("write_bw_64")) {
            if (m.data.length == 108) {
                Dest d = Dest.parseKey(m.data, true);
                assertArrayEquals(m.data, d.key(true), "re-encoded");
                assertEquals(0x1f, d.qpn());
                assertEquals(1, d.outReads());
                assertEquals((byte) 0xc0, d.gid()[12]);
            }
        }
        Dest d = new Dest(1, 1, 0x11, 0xabcdef, 0x1234, 0x7f00aa001000L, new byte[16], 0);
        String k = new String(d.key(false), StandardCharsets.US_ASCII);
        assertEquals("0001:0001:000011:abcdef:00001234:00007f00aa001000:00000000\0", k);
        assertEquals(59, d.key(false).length);
        assertEquals(d.qpn(), Dest.parseKey(d.key(false), false).qpn());
    }

    /**
     * A hostile client announcing a page size of 1 GiB (found by PerftestFuzzTest: 809 MB made ib_send_bw's server
     * allocate 1.6 GB of direct memory and die of OutOfMemoryError): refused with status 1, nothing allocated.
     */
    @Test
    void aPeersHugePageSizeIsRefused() throws Exception {
        int port = Side.freePort();
        Side server = Side.server("ib_send_bw", core, null, "-d", dev.name(), "-n", "5", "-s", "64", "-p",
                Integer.toString(port));
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(java.util.Arrays.copyOf("6.06".getBytes(StandardCharsets.US_ASCII), 16));
            s.getInputStream().readNBytes(16); // the server's version
            out.write(java.nio.ByteBuffer.allocate(8).putInt(1 << 30).putInt(64).array());
            s.getInputStream().readAllBytes();
        }
        assertEquals(1, server.await(10), server.tty());
        assertTrue(server.err().contains(" Remote page size 1073741824 or cache line 64 is not supported\n"),
                server.err());
        assertEquals(List.of(), dev.resources());
    }
}
