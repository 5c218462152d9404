package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.testsupport.FuzzWatch;
import org.jrdma.testsupport.HostilePeer;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: a hostile peer on the pingpong tools' TCP side channel (rdma-core's {@code pp_*_exch_dest}, port
 * 18515 by default). {@link #peer}: a whole tool run (ibv_rc/uc/ud/srq_pingpong on a hw-loopback device) as
 * server or as client, the other end of the socket being the fuzzer: it sends the input's bytes, half-closes,
 * and reads what comes until the tool closes. Input: a control byte (bits 0-1 the tool, bit 2 the tool is the
 * client, bit 3 adds {@code -g 0}), then what the peer sends. Per input: the run ends by itself with status 1
 * and a message on stderr (what the real tool says: "Couldn't read remote address", "Failed to modify QP to
 * RTR", ...), or, when the bytes made a whole exchange, it waits for traffic as the real tool would and
 * Ctrl-C ends it (130) within the bound; nothing is thrown out of the tool, no thread dies, and the device
 * has no resource left after the run. {@link #message}: {@code Dest.fromWire} (the tools' {@code sscanf}) on
 * any bytes never throws and always yields a message that encodes to 52 bytes.
 */
class PingpongPeerFuzzTest {
    private static final String[] TOOLS = {"ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong", "ibv_srq_pingpong"};
    /** How long a run that got a whole exchange may wait for traffic before the fuzzer's Ctrl-C. */
    private static final long WAIT_MS = 200;
    private static IbCore core;
    private static LoopbackDevice lo;
    private static IbDevice dev;
    private static FuzzWatch watch;
    private static int runs;
    private static int killed;

    private static void start() {
        watch = new FuzzWatch();
        core = IbCore.newInstance();
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "lo%d", 2, 0);
        dev = lo.register(core.registrar()).device();
    }

    @FuzzTest(maxDuration = "60s")
    void peer(byte[] data) throws Exception {
        if (core == null) {
            start();
        }
        // Jazzer's SSRF detector (loaded once fuzzing starts, hence here): the side channel on loopback is the point
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("localhost") || host.startsWith("127."));
        int c = data.length > 0 ? data[0] & 0xff : 0;
        byte[] send = data.length > 1 ? Arrays.copyOfRange(data, 1, Math.min(data.length, 1 + 64 * 1024)) : new byte[0];
        List<String> args = new ArrayList<>(List.of("-d", dev.name(), "-n", "2"));
        if ((c & 0x08) != 0) {
            args.addAll(List.of("-g", "0"));
        }
        String tool = TOOLS[c & 3];
        Side run = (c & 0x04) == 0 ? asClient(tool, args, send) : asServer(tool, args, send);
        int status;
        long end = System.nanoTime() + WAIT_MS * 1_000_000;
        while (run.isAlive() && System.nanoTime() - end < 0) {
            Thread.sleep(2);
        }
        if (run.isAlive()) {
            killed++;
            status = run.kill();
            List<String> died = watch.take();
            assertTrue(died.isEmpty(), () -> "failures: " + died + "\n" + run.tty());
            // 130; or 1 with its words when the run was just ending by itself (a slow setup) as Ctrl-C came
            assertTrue(status == PingpongTool.INTERRUPTED || status == 1 && !run.err().isBlank(), () -> "Ctrl-C: " + run.tty());
        } else {
            status = run.await(1);
            List<String> died = watch.take(); // first: a run that died of an exception has no status (-1)
            assertTrue(died.isEmpty(), () -> "failures: " + died + "\n" + run.tty());
            assertTrue(status == 0 || status == 1, () -> "status " + status + ": " + run.tty());
            if (status == 1) {
                assertFalse(run.err().isBlank(), () -> "status 1 without a word on stderr: " + run.tty());
            }
        }
        runs++;
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "failures: " + failed + "\n" + run.tty());
        assertEquals(List.of(), dev.resources(), () -> "left on the device after " + run.tty());
    }

    /** The tool as server; the fuzzer connects, sends, half-closes, reads until the tool closes. */
    private static Side asClient(String tool, List<String> args, byte[] send) throws Exception {
        int port = Side.freePort();
        List<String> a = new ArrayList<>(args);
        a.addAll(List.of("-i", "1", "-p", Integer.toString(port)));
        Side run = Side.server(tool, core, a.toArray(String[]::new));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            HostilePeer.talk(s, send);
        }
        return run;
    }

    /** The tool as client of a fuzzer listening on 127.0.0.1, which reads the tool's message(s) and answers. */
    private static Side asServer(String tool, List<String> args, byte[] send) throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ss.setSoTimeout(10_000);
            List<String> a = new ArrayList<>(args);
            a.addAll(List.of("-i", "2", "-p", Integer.toString(ss.getLocalPort()), "127.0.0.1"));
            Side run = Side.start(tool, core, a.toArray(String[]::new));
            try (Socket s = ss.accept()) {
                // the client speaks first: its message (16 of them for srq), then waits for ours
                s.setSoTimeout(10_000);
                s.getInputStream().readNBytes(tool.equals("ibv_srq_pingpong") ? 16 * Dest.MSG_SIZE : Dest.MSG_SIZE);
                HostilePeer.talk(s, send);
            }
            return run;
        }
    }

    @FuzzTest(maxDuration = "30s")
    void message(byte[] data) {
        Dest d = Dest.fromWire(data);
        assertEquals(Dest.MSG_SIZE, d.toWire().length);
        assertTrue(d.lidQpnPsn().startsWith("LID 0x"));
        d.gidText();
    }

    @AfterAll
    static void stop() {
        if (core != null) {
            System.out.println("PingpongPeerFuzzTest: " + runs + " runs, " + killed + " waited for traffic (Ctrl-C)");
            lo.close();
            core = null;
            watch.close();
        }
    }
}
