package org.jrdma.ib.mad.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.testsupport.FuzzArgs;
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: argument vectors for ib-mad's Gogo commands as infiniband-diags parses them ({@code ibstat},
 * {@code sminfo}, {@code saquery}, {@code ibroute}: getopt, the common options of {@code ibdiag_common.c},
 * LIDs, GIDs, DR paths, node descriptions), on a managed loopback fabric (lo0 with 2 ports, lo1 with 1, the
 * SM on lo0/1). Input: a control byte (the tool), then the arguments separated by NUL bytes (at most 16).
 * Per input: an exit status 0..255 and nothing thrown, a non-zero status with something said on stdout or
 * stderr (the usage, infiniband-diags' "iberror: failed: ..."), nothing logged at WARNING by the MAD layer or
 * the SM (a handler that threw), no thread died, both devices' ports still ACTIVE. Timeouts above 50 ms are
 * cut to 50 ({@link #shortTimeouts}) so that a query to nowhere costs little.
 */
class DiagArgsFuzzTest {
    private static final int MAX_ARGS = 16;
    private static ManagedIbFabric ib;
    private static List<IbDevice> devs;
    private static FuzzWatch watch;

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) throws Exception {
        if (ib == null) {
            watch = new FuzzWatch();
            ib = new ManagedIbFabric();
            ib.add(2);
            ib.add(1);
            devs = ib.devices();
            ib.sweptBy(devs.get(0), 5);
        }
        String[] args = FuzzArgs.split(data, MAX_ARGS);
        shortTimeouts(args);
        DiagTool tool = switch (FuzzArgs.control(data) % 4) {
            case 0 -> new Ibstat(ib.core());
            case 1 -> new Sminfo(ib.core(), ib.mad());
            case 2 -> new Saquery(ib.core(), ib.sa());
            default -> new Ibroute(ib.core(), ib.mad());
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = tool.run(new PrintStream(out, true, StandardCharsets.UTF_8), args);
        assertTrue(status >= 0 && status <= 255, () -> "exit status " + status);
        if (status != 0) {
            assertFalse(out.size() == 0 && tool.stderr.isEmpty(), () -> tool.prog + " status " + status
                    + " and not a word: " + String.join(" ", args));
        }
        assertEquals(List.of(), watch.take(), "warnings or dead threads");
        for (IbDevice d : devs) {
            for (int p = 1; p <= d.physPortCnt(); p++) {
                assertEquals(PortState.ACTIVE, d.queryPort(p).state(), d.name() + "/" + p);
            }
        }
    }

    /**
     * What getopt would take as the value of {@code -t} / {@code --timeout} (attached, {@code =}, or the next
     * argument; the long name abbreviated to at least {@code --ti}): a whole number above 50 becomes "50".
     */
    static void shortTimeouts(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return;
            }
            int eq = a.indexOf('=');
            if (a.startsWith("--ti") && "--timeout".startsWith(eq < 0 ? a : a.substring(0, eq))) {
                if (eq >= 0) {
                    args[i] = a.substring(0, eq + 1) + cut(a.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    args[i + 1] = cut(args[i + 1]);
                    i++;
                }
            } else if (a.startsWith("-") && !a.startsWith("--")) {
                int t = a.indexOf('t');
                if (t > 0 && a.substring(1, t).chars().allMatch(c -> "MnaDNmgpLGdve".indexOf(c) >= 0)) {
                    if (t + 1 < a.length()) {
                        args[i] = a.substring(0, t + 1) + cut(a.substring(t + 1));
                    } else if (i + 1 < args.length) {
                        args[i + 1] = cut(args[i + 1]);
                        i++;
                    }
                }
            }
        }
    }

    private static String cut(String v) {
        try {
            return Long.decode(v.trim()) > 50 ? "50" : v;
        } catch (NumberFormatException e) {
            return v;
        }
    }

    @AfterAll
    static void stop() {
        if (ib != null) {
            ib.close();
            ib = null;
        }
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }
}
