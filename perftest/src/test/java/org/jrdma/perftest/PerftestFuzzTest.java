package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.testsupport.FuzzWatch;
import org.jrdma.testsupport.HostilePeer;
import org.jrdma.testsupport.FuzzArgs;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer on what perftest takes from outside. {@link #peer}: a hostile peer on the TCP side channel (port
 * 18515): a whole ib_send/write/read_bw or ib_send_lat run on a hw-loopback device as server or client, the
 * fuzzer at the other end of the socket sending the input's bytes (version, page size, cache line, key records,
 * "done" in the real exchange), then half-closing and reading until the tool closes. Control byte: bits 0-1 the
 * tool, bit 2 the tool is the client. Per input: the run ends by itself with a status and, when it is not 0, a
 * word on stderr; or, if the bytes made a whole exchange, it waits for traffic as the real one would and
 * Ctrl-C ends it; nothing thrown out of the tool, no thread dies, nothing left on the device. {@link #args}:
 * argument vectors (NUL-separated after a control byte that picks the tool) through perftest's parser
 * ({@code parser()}, {@code OptionTable}): a status or perftest's own exit ({@code ExitNow}), nothing else.
 */
class PerftestFuzzTest {
    private static final String[] TOOLS = {"ib_send_bw", "ib_write_bw", "ib_read_bw", "ib_send_lat"};
    private static final long WAIT_MS = 300;
    private static IbCore core;
    private static LoopbackDevice lo;
    private static IbDevice dev;
    private static FuzzWatch watch;
    private static int runs;
    private static int killed;

    @FuzzTest(maxDuration = "60s")
    void peer(byte[] data) throws Exception {
        if (core == null) {
            watch = new FuzzWatch();
            core = IbCore.newInstance();
            lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
            dev = lo.register(core.registrar()).device();
        }
        // Jazzer's SSRF detector (loaded once fuzzing starts, hence here): the side channel on loopback is the point
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("localhost") || host.startsWith("127."));
        int c = data.length > 0 ? data[0] & 0xff : 0;
        byte[] send = data.length > 1 ? Arrays.copyOfRange(data, 1, Math.min(data.length, 1 + 64 * 1024)) : new byte[0];
        String tool = TOOLS[c & 3];
        List<String> args = new ArrayList<>(List.of("-d", dev.name(), "-n", "5", "-s", "64"));
        Side run;
        if ((c & 0x04) == 0) {
            int port = Side.freePort();
            args.addAll(List.of("-i", "1", "-p", Integer.toString(port)));
            run = Side.server(tool, core, null, args.toArray(String[]::new));
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                HostilePeer.talk(s, send);
            }
        } else {
            try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                ss.setSoTimeout(10_000);
                args.addAll(List.of("-i", "2", "-p", Integer.toString(ss.getLocalPort()), "127.0.0.1"));
                run = Side.start(tool, core, null, args.toArray(String[]::new));
                try (Socket s = ss.accept()) {
                    HostilePeer.talk(s, send);
                }
            }
        }
        long end = System.nanoTime() + WAIT_MS * 1_000_000;
        while (run.isAlive() && System.nanoTime() - end < 0) {
            Thread.sleep(2);
        }
        if (run.isAlive()) {
            killed++;
            int status = run.kill();
            List<String> died = watch.take();
            assertTrue(died.isEmpty(), () -> "failures: " + died + "\n" + run.tty());
            // 130; or 1 with its words when the run was just ending by itself (a slow setup) as Ctrl-C came
            assertTrue(status == Perftest.INTERRUPTED || status == 1 && !run.err().isBlank(), () -> "Ctrl-C: " + run.tty());
        } else {
            int status = run.await(1);
            List<String> died = watch.take(); // first: a run that died of an exception has no status (-1)
            assertTrue(died.isEmpty(), () -> "failures: " + died + "\n" + run.tty());
            assertTrue(status >= 0 && status <= 255, () -> "status " + status + ": " + run.tty());
            if (status != 0) {
                assertFalse(run.err().isBlank(), () -> "status " + status + " without a word on stderr: " + run.tty());
            }
        }
        runs++;
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed + "\n" + run.tty());
        assertEquals(List.of(), dev.resources(), () -> "left on the device after " + run.tty());
    }

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) {
        int c = data.length > 0 ? data[0] & 0xff : 0;
        List<Perftest> all = Perftest.all();
        Perftest t = all.get(c % all.size());
        String[] name = t.name().split("_");
        Params p = new Params(Params.Verb.valueOf(name[1].toUpperCase()), Params.Tst.valueOf(name[2].toUpperCase()),
                t.name());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int r;
        try {
            r = p.parse(FuzzArgs.split(data, 24), new PrintStream(out, true, StandardCharsets.UTF_8), err);
        } catch (Params.ExitNow e) {
            r = e.status;
        }
        int status = r;
        if (status != 0 && status != Params.VERSION_EXIT && status != Params.HELP_EXIT) {
            assertFalse(out.size() == 0 && err.length() == 0, () -> "status " + status + " and not a word");
        }
    }

    @AfterAll
    static void stop() {
        if (core != null) {
            System.out.println("PerftestFuzzTest: " + runs + " runs, " + killed + " waited for traffic (Ctrl-C)");
            lo.close();
            core = null;
            watch.close();
        }
    }
}
