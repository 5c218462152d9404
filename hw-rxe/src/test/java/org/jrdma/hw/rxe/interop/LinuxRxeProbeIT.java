package org.jrdma.hw.rxe.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Interop against the real Linux rxe in the rxepeer QEMU guest (shared/peer/linux-rxe): {@link LinuxRxeProbe}
 * as the client of {@code ibv_rc_pingpong -n 1 -s 64}, from unconnected UDP sockets, with the IPv4 ICRC computed
 * for IP ID 0.
 *
 * <p>Skipped unless {@code -Djrdma.interop=true} (or env {@code JRDMA_INTEROP=true}) and the guest answers.
 * Needs root (it uses {@code ip netns exec rxepeer} and {@code guest.sh}); Maven itself need not run in the netns:
 * <pre>
 * shared/peer/linux-rxe/guest.sh up
 * mvn -o -pl hw-rxe -am test -Dtest=LinuxRxeProbeIT -Djrdma.interop=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * The probe runs in a child JVM inside the netns with {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}
 * (setting IP_MTU_DISCOVER on a JDK 17 DatagramChannel). {@code -Djrdma.rxepeer.dir=DIR} overrides where
 * guest.sh is looked for (default: the first shared/peer/linux-rxe above the working directory).
 */
class LinuxRxeProbeIT {
    private static Path guestSh;

    @BeforeAll
    static void guestUp() throws Exception {
        assumeTrue(Boolean.getBoolean("jrdma.interop") || "true".equals(System.getenv("JRDMA_INTEROP")),
                "interop tests disabled (-Djrdma.interop=true)");
        guestSh = findGuestSh();
        assumeTrue(guestSh != null, "no shared/peer/linux-rxe/guest.sh");
        assumeTrue(run(30, guestSh.toString(), "exec", "-t", "10", "true").rc == 0, "rxepeer guest not up");
    }

    /** IP_PMTUDISC_DO: the kernel sends unconnected datagrams with IP ID 0; rxe accepts our ICRC. */
    @Test
    void sendFromPort4791IsAccepted() throws Exception {
        accepted(4791);
    }

    @Test
    void sendFromEphemeralPortIsAccepted() throws Exception {
        accepted(0);
    }

    /**
     * The JDK default (IP_PMTUDISC_WANT): DF is set but skb->ignore_df too, so Linux picks a hashed
     * per-destination ID (ip_select_ident_segs); our ICRC for ID 0 is wrong and rxe drops the packet silently.
     */
    @Test
    void defaultPmtuDiscoveryGetsANonZeroIdAndIsDropped() throws Exception {
        long before = counter("rcvd_pkts");
        Server s = Server.start();
        Map<String, String> r = probe("want", 4791);
        s.stop();
        assertEquals("1", r.get("pmtudisc"));
        assertEquals("false", r.get("acked"), r.toString());
        assertEquals(before, counter("rcvd_pkts"));
    }

    private void accepted(int sport) throws Exception {
        long rcvdBefore = counter("rcvd_pkts");
        long sentBefore = counter("sent_pkts");
        Server s = Server.start();
        Map<String, String> r = probe("do", sport);
        String log = s.waitAndLog(20);
        assertEquals("2", r.get("pmtudisc"));
        if (sport != 0) {
            assertEquals(String.valueOf(sport), r.get("sport"));
        }
        assertEquals("true", r.get("acked"), r.toString());
        assertEquals("0x1f", r.get("syndrome"));
        assertEquals("false", r.get("controlAnswered"), "the SEND with an ICRC for IP ID 1 must be dropped");
        assertEquals("1", r.get("pongs"), "the server's SEND was retransmitted: our ACK was not accepted");
        assertEquals("0", r.get("badIcrc"));
        assertTrue(Integer.parseInt(r.get("ackId")) >= 0, "IcrcIpv4Span found an IP ID for the ACK");
        assertTrue(Integer.parseInt(r.get("pongId")) >= 0, "IcrcIpv4Span found an IP ID for the server's SEND");
        assertTrue(log.contains("1 iters in"), log);
        assertEquals(r.get("predictedSport"), r.get("guestSport"), "rxe's RC source port (UdpSourcePort)");
        // our SEND and our ACK; the control packet with the wrong ICRC is not counted
        assertEquals(rcvdBefore + 2, counter("rcvd_pkts"));
        assertEquals(sentBefore + 2, counter("sent_pkts"));
        assertFalse(log.contains("Failed"), log);
    }

    private static Map<String, String> probe(String pmtu, int sport) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Proc p = run(60, "ip", "netns", "exec", "rxepeer", java, "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), LinuxRxeProbe.class.getName(), "--sport",
                String.valueOf(sport), "--pmtudisc", pmtu, "--timeout", "10000");
        System.out.print(p.out);
        Map<String, String> kv = new HashMap<>();
        for (String line : p.out.split("\n")) {
            int i = line.indexOf("RESULT ");
            if (i >= 0) {
                for (String f : line.substring(i + 7).trim().split(" ")) {
                    int eq = f.indexOf('=');
                    kv.put(f.substring(0, eq), f.substring(eq + 1));
                }
            }
        }
        assertTrue(kv.containsKey("acked"), "probe output without RESULT:\n" + p.out + p.err);
        return kv;
    }

    private static long counter(String name) throws Exception {
        Proc p = run(30, guestSh.toString(), "exec", "cat /sys/class/infiniband/rxe0/ports/1/hw_counters/" + name);
        assertEquals(0, p.rc, p.err);
        return Long.parseLong(p.out.trim());
    }

    /** ibv_rc_pingpong server in the guest. */
    private static final class Server {
        String pid;
        String log;
        String rcFile;

        static Server start() throws Exception {
            Proc p = run(30, guestSh.toString(), "exec", "--bg", "ibv_rc_pingpong -d rxe0 -g 1 -n 1 -s 64");
            assertEquals(0, p.rc, p.err);
            String[] f = p.out.trim().split("\\s+");
            Server s = new Server();
            s.pid = f[0];
            s.log = f[1];
            s.rcFile = f[2];
            Thread.sleep(500);
            return s;
        }

        /** Waits for the server to exit, returns its log and exit status. */
        String waitAndLog(int seconds) throws Exception {
            Proc p = run(seconds + 30, guestSh.toString(), "exec", "for i in $(seq " + seconds * 5
                    + "); do [ -s " + rcFile + " ] && break; sleep 0.2; done; cat " + log + "; echo rc=$(cat " + rcFile
                    + " 2>/dev/null)");
            stop();
            return p.out;
        }

        void stop() throws Exception {
            run(30, guestSh.toString(), "exec", "kill " + pid + " 2>/dev/null; true");
        }
    }

    private static final class Proc {
        int rc;
        String out;
        String err;
    }

    private static Proc run(int timeoutSec, String... cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of(cmd));
        Path outF = Files.createTempFile("probe", ".out");
        Path errF = Files.createTempFile("probe", ".err");
        try {
            Process p = new ProcessBuilder(c).redirectOutput(outF.toFile()).redirectError(errF.toFile()).start();
            Proc r = new Proc();
            if (!p.waitFor(timeoutSec, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                r.rc = 124;
            } else {
                r.rc = p.exitValue();
            }
            r.out = Files.readString(outF, StandardCharsets.UTF_8);
            r.err = Files.readString(errF, StandardCharsets.UTF_8);
            return r;
        } finally {
            Files.deleteIfExists(outF);
            Files.deleteIfExists(errF);
        }
    }

    private static Path findGuestSh() {
        String dir = System.getProperty("jrdma.rxepeer.dir");
        if (dir != null && !dir.isEmpty()) {
            return Paths.get(dir, "guest.sh");
        }
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path g = d.resolve("shared").resolve("peer").resolve("linux-rxe").resolve("guest.sh");
            if (Files.isExecutable(g)) {
                return g;
            }
        }
        return null;
    }
}
