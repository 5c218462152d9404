package org.jrdma.ib.tools;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.IbCore;

/**
 * One side of a pingpong (one "process") run on its own thread, with its stdout and stderr
 * captured. Every wait is bounded: a side that does not finish in time is interrupted, as Ctrl-C
 * would, and the test fails.
 */
final class Side {
    final PingpongTool tool;
    final String[] args;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final CountDownLatch listening = new CountDownLatch(1);
    private final Thread thread;
    private volatile int status = -1;

    private Side(PingpongTool tool, IbCore core, String... args) {
        this.tool = tool;
        this.args = args;
        tool.listening = listening::countDown;
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        thread = new Thread(() -> status = tool.run(core, o, e, args), tool.name() + " " + String.join(" ", args));
        thread.setDaemon(true);
    }

    static Side start(String tool, IbCore core, String... args) {
        Side s = new Side(PingpongTool.named(tool), core, args);
        s.thread.start();
        return s;
    }

    /** Starts a server and waits until it listens. */
    static Side server(String tool, IbCore core, String... args) throws InterruptedException {
        Side s = start(tool, core, args);
        if (!s.listening.await(10, TimeUnit.SECONDS)) {
            s.kill();
            throw new AssertionError("the server did not listen within 10 s: " + s.err());
        }
        return s;
    }

    /** Waits for the exit status; interrupts (and fails) after {@code seconds}. */
    int await(long seconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        if (thread.isAlive()) {
            kill();
            throw new AssertionError(thread.getName() + " still running after " + seconds + " s (interrupted); out:\n"
                    + out() + "err:\n" + err());
        }
        return status;
    }

    /** Ctrl-C: interrupts and waits for the run to end (at most 10 s); returns its status. */
    int kill() throws InterruptedException {
        thread.interrupt();
        thread.join(10_000);
        assertFalse(thread.isAlive(), "an interrupted run ends");
        return status;
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    List<String> outLines() {
        return out().lines().toList();
    }

    /** Waits (bounded) until stdout has at least {@code n} lines. */
    void awaitOutLines(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (outLines().size() < n) {
            assertTrue(System.nanoTime() < deadline, "no " + n + " lines of output in 10 s: " + out());
            Thread.sleep(5);
        }
    }

    /** A TCP port nobody listens on right now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
