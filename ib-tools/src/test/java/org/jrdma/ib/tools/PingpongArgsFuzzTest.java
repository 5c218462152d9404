package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.testsupport.FuzzArgs;
import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer: argument vectors for the four pingpong tools' option parsing (their getopt strings and long
 * options, {@code strtol}/{@code strtoul} values, the checks of -i, -s, -m, -g, -l, -o, ...). Input: a
 * control byte (bits 0-1 the tool), then the words separated by NUL bytes (at most 16). The core has no
 * device, so a command line that parses ends where the real tool does without one ("No IB devices found",
 * "IB device X not found"): never a socket, never a wait. Per input: status 0 or 1 (the usage, or the
 * tool's error) and nothing thrown, a 1 always with words on stdout or stderr, no thread died.
 */
class PingpongArgsFuzzTest {
    private static final String[] TOOLS = {"ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong", "ibv_srq_pingpong"};
    private static IbCore core;
    private static FuzzWatch watch;

    @FuzzTest(maxDuration = "60s")
    void args(byte[] data) {
        if (core == null) {
            core = IbCore.newInstance();
            watch = new FuzzWatch();
        }
        String[] args = FuzzArgs.split(data, 16);
        PingpongTool tool = PingpongTool.named(TOOLS[FuzzArgs.control(data) & 3]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = tool.run(core, new PrintStream(out, true, StandardCharsets.ISO_8859_1),
                new PrintStream(err, true, StandardCharsets.ISO_8859_1), args);
        assertTrue(status == 0 || status == 1, () -> tool.name() + " status " + status + ": " + String.join(" ", args));
        if (status != 0) {
            assertFalse(out.size() == 0 && err.size() == 0, () -> "status 1 and not a word: " + String.join(" ", args));
        }
        assertEquals(List.of(), watch.take(), "warnings or dead threads");
    }

    @AfterAll
    static void stop() {
        core = null;
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }
}
