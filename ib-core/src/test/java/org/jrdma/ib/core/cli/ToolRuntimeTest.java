package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Exit, polling idle and the Gogo / process ways of running a tool's main. */
class ToolRuntimeTest {
    final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(outBytes, false, StandardCharsets.UTF_8);
    final PrintStream err = new PrintStream(errBytes, false, StandardCharsets.UTF_8);

    @Test
    void exitCarriesTheStatusWithoutAStackTrace() {
        Exit e = Exit.exit(15);
        assertEquals(15, e.status());
        assertEquals(0, e.getStackTrace().length);
    }

    @Test
    void anInterruptEndsTheWaitWith130AndStaysSet() {
        Polling.idle(0);
        Polling.idle(1000);
        Thread.currentThread().interrupt();
        try {
            Exit e = assertThrows(Exit.class, () -> Polling.idle(0));
            assertEquals(Exit.INTERRUPTED, e.status());
            assertTrue(Thread.currentThread().isInterrupted(), "the flag is kept for the caller");
            assertThrows(Exit.class, Exit::checkInterrupt);
        } finally {
            Thread.interrupted();
        }
        Exit.checkInterrupt();
    }

    @Test
    void executeThrowsTheStatusAndStderrWithoutItsLastNewline() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> ToolMain.execute(out, err, stderr -> {
            out.print("on stdout\n");
            stderr.append("Couldn't connect to host:18515\n");
            return 257; // the status is the low byte
        }));
        assertEquals(1, f.exitStatus());
        assertEquals("Couldn't connect to host:18515", f.getMessage());
        assertEquals("on stdout\n", outBytes.toString(StandardCharsets.UTF_8));
        assertEquals("", errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void executePrintsStderrOfASuccessfulRun() {
        ToolMain.execute(out, err, stderr -> {
            stderr.append("a warning\n");
            return 0;
        });
        assertEquals("a warning\n", errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runReturnsTheStatusAndPrintsStderr() {
        int status = ToolMain.run(out, err, stderr -> {
            stderr.append("failed\n");
            return -1;
        });
        assertEquals(255, status);
        assertEquals("failed\n", errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theToolsClientIsNamedAfterIt() {
        assertEquals("ib_write_bw", ToolClient.named("ib_write_bw").name());
    }
}
