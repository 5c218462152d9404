package org.jrdma.ib.cm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.spi.UnregisterReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Two one-port hw-loopback devices ({@code 10.0.0.1} on the first, {@code 10.0.0.2} on the second)
 * under the {@link LoopbackRdmaCm}. After each test no CM id is left, {@code rdma res} is empty on both
 * devices, and unregistering them destroys nothing.
 */
abstract class RpingFixture {
    static final String CLIENT_IP = "10.0.0.1";
    static final String SERVER_IP = "10.0.0.2";

    IbCore core;
    LoopbackDevice lo0;
    LoopbackDevice lo1;
    IbDevice dev0;
    IbDevice dev1;
    LoopbackRdmaCm cm;

    @BeforeEach
    void setUp() throws Exception {
        core = IbCore.newInstance();
        lo0 = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
        lo1 = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 1, 0);
        dev0 = lo0.register(core.registrar()).device();
        dev1 = lo1.register(core.registrar()).device();
        cm = new LoopbackRdmaCm(Map.of(
                InetAddress.getByName(CLIENT_IP), new LoopbackRdmaCm.Endpoint(dev0, 1),
                InetAddress.getByName(SERVER_IP), new LoopbackRdmaCm.Endpoint(dev1, 1)));
    }

    @AfterEach
    void tearDown() {
        try {
            assertEquals(Set.of(), cm.openIds(), "CM ids left");
            List<ResourceInfo> left0 = dev0.resources();
            List<ResourceInfo> left1 = dev1.resources();
            assertEquals(List.of(), left0, "rdma res on " + dev0.name());
            assertEquals(List.of(), left1, "rdma res on " + dev1.name());
        } finally {
            cm.close();
            UnregisterReport r0 = lo0.close();
            UnregisterReport r1 = lo1.close();
            assertEquals(List.of(), r0.leaked());
            assertEquals(List.of(), r1.leaked());
        }
    }

    /** One rping run on its own thread, as a process: stdout, stderr, exit status. */
    static final class Side {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Thread thread;
        volatile int status = -1;

        Side(LoopbackRdmaCm cm, String name, String... args) {
            PrintStream o = new PrintStream(out, true, StandardCharsets.ISO_8859_1);
            PrintStream e = new PrintStream(err, true, StandardCharsets.ISO_8859_1);
            thread = new Thread(() -> status = Rping.run(cm, o, e, args), name);
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits for the exit status; fails if the run does not end within {@code ms}. */
        int await(long ms) throws InterruptedException {
            thread.join(ms);
            if (thread.isAlive()) {
                StringBuilder dump = new StringBuilder();
                Thread.getAllStackTraces().forEach((t, st) -> {
                    if (t.getName().startsWith("rping") || t.getName().startsWith("loopback")) {
                        dump.append(t.getName()).append('\n');
                        for (StackTraceElement e : st) {
                            dump.append("    ").append(e).append('\n');
                        }
                    }
                });
                assertFalse(true, thread.getName() + " still running; stdout:\n" + out() + "\nstderr:\n" + err()
                        + "\nthreads:\n" + dump);
            }
            return status;
        }

        String out() {
            return out.toString(StandardCharsets.ISO_8859_1);
        }

        String err() {
            return err.toString(StandardCharsets.ISO_8859_1);
        }
    }

    Side server(String... args) throws InterruptedException {
        Side s = new Side(cm, "rping-server", args);
        awaitListening(s, SERVER_IP, Rping.PORT);
        return s;
    }

    Side client(String... args) {
        return new Side(cm, "rping-client", args);
    }

    void awaitListening(Side s, String ip, int port) throws InterruptedException {
        InetSocketAddress a = new InetSocketAddress(ip, port);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!cm.listening(a)) {
            assertTrue(s.thread.isAlive(), "server ended: " + s.err());
            assertTrue(System.nanoTime() < deadline, "server not listening");
            Thread.sleep(5);
        }
    }

    /** What the Linux client puts in its start buffer for ping {@code ping} of {@code size} bytes, without the NUL. */
    static String pingString(int ping, int size) {
        StringBuilder sb = new StringBuilder("rdma-ping-" + ping + ": ");
        char c = (char) ('A' + ping % 58);
        while (sb.length() < size - 1) {
            sb.append(c);
            c = c == 'z' ? 'A' : (char) (c + 1);
        }
        sb.setLength(size - 1);
        return sb.toString();
    }
}
