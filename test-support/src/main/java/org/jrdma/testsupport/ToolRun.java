package org.jrdma.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.Charset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One run of a Gogo-style tool (ibv_rc_pingpong, ib_write_bw, rping: a {@link Main} that prints on stdout and
 * stderr and returns an exit status) as a test's "process": on its own daemon thread, stdout and stderr
 * captured, each alone and interleaved as a terminal shows them. Every wait is bounded: a run that does not
 * finish in time is interrupted, as Ctrl-C would, and the test fails with its output and stacks.
 * <p>
 * A tool's test subclasses this for what is its own (the tool object, its hooks) and wires the tool's
 * "listening" callback to {@link #listening()}.
 */
public class ToolRun {
    /** The tool's main: prints on {@code out} and {@code err}, returns the exit status. */
    @FunctionalInterface
    public interface Main {
        int run(PrintStream out, PrintStream err);
    }

    /** How long an interrupted run gets to end. */
    private static final long KILL_SECONDS = 10;

    private final Charset charset;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    /** stdout and stderr in the order they were written. */
    private final ByteArrayOutputStream tty = new ByteArrayOutputStream();
    private final CountDownLatch listening = new CountDownLatch(1);
    private final Thread thread;
    private volatile int status = -1;
    private String[] dumpPrefixes = {};

    /** A run named {@code name} (its thread's name), not started yet. */
    protected ToolRun(String name, Charset charset, Main main) {
        this.charset = charset;
        PrintStream o = new PrintStream(tee(out), true, charset);
        PrintStream e = new PrintStream(tee(err), true, charset);
        thread = new Thread(() -> status = main.run(o, e), name);
        thread.setDaemon(true);
    }

    /** Starts {@code main} on a thread named {@code name}. */
    public static ToolRun start(String name, Charset charset, Main main) {
        return new ToolRun(name, charset, main).start();
    }

    /** Starts the run's thread; returns this. */
    public ToolRun start() {
        thread.start();
        return this;
    }

    /** Also show the stacks of the threads whose names start with one of {@code prefixes} when a wait fails. */
    public ToolRun dumpThreadsNamed(String... prefixes) {
        dumpPrefixes = prefixes.clone();
        return this;
    }

    /** The tool's "now listening" callback: what {@link #awaitListening} waits for. */
    public void listening() {
        listening.countDown();
    }

    /** Waits until the tool called {@link #listening()}; kills the run and fails after {@code seconds}. */
    public void awaitListening(long seconds) throws InterruptedException {
        if (!listening.await(seconds, TimeUnit.SECONDS)) {
            String stacks = stacks();
            kill();
            throw new AssertionError(name() + " did not listen within " + seconds + " s; err:\n" + err() + stacks);
        }
    }

    /** Polls {@code ready} until true; fails when the run ended first or after {@code seconds}. */
    public void awaitUntil(BooleanSupplier ready, String what, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!ready.getAsBoolean()) {
            if (!thread.isAlive()) {
                throw new AssertionError(name() + " ended (status " + status + ") before " + what + "; err:\n" + err());
            }
            if (System.nanoTime() >= deadline) {
                String stacks = stacks();
                kill();
                throw new AssertionError("no " + what + " within " + seconds + " s; err:\n" + err() + stacks);
            }
            Thread.sleep(5);
        }
    }

    /** Waits for the exit status; interrupts the run and fails after {@code seconds}. */
    public int await(long seconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        if (thread.isAlive()) {
            String stacks = stacks();
            kill();
            throw new AssertionError(name() + " still running after " + seconds + " s (interrupted); out:\n" + out()
                    + "\nerr:\n" + err() + stacks);
        }
        return status;
    }

    /** Ctrl-C: interrupts and waits for the run to end (bounded); returns its status. */
    public int kill() throws InterruptedException {
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(KILL_SECONDS));
        if (thread.isAlive()) {
            throw new AssertionError(name() + " did not end within " + KILL_SECONDS + " s of an interrupt" + stacks());
        }
        return status;
    }

    /** Ctrl-C without waiting: {@link #await} gives the status. */
    public void interrupt() {
        thread.interrupt();
    }

    public boolean isAlive() {
        return thread.isAlive();
    }

    public String name() {
        return thread.getName();
    }

    public String out() {
        synchronized (tty) {
            return out.toString(charset);
        }
    }

    public String err() {
        synchronized (tty) {
            return err.toString(charset);
        }
    }

    /** stdout and stderr as one terminal shows them, interleaved in the order they were written. */
    public String tty() {
        synchronized (tty) {
            return tty.toString(charset);
        }
    }

    public List<String> outLines() {
        return out().lines().toList();
    }

    /** Waits (at most 10 s) until stdout has at least {@code n} lines; fails otherwise. */
    public void awaitOutLines(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (outLines().size() < n) {
            if (System.nanoTime() >= deadline) {
                throw new AssertionError("no " + n + " lines of output in 10 s: " + out());
            }
            Thread.sleep(5);
        }
    }

    /** A TCP port nobody listens on right now. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The stacks of this run's thread and of the threads named in {@link #dumpThreadsNamed}. */
    private String stacks() {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, st) -> {
            if (t == thread || startsWithAny(t.getName())) {
                dump.append('\n').append(t.getName()).append(':');
                for (StackTraceElement e : st) {
                    dump.append("\n    ").append(e);
                }
            }
        });
        return dump.length() == 0 ? "" : "\nthreads:" + dump;
    }

    private boolean startsWithAny(String name) {
        for (String p : dumpPrefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Writes to {@code own} and to the terminal view, under one lock so the two agree. */
    private OutputStream tee(ByteArrayOutputStream own) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (tty) {
                    own.write(b);
                    tty.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (tty) {
                    own.write(b, off, len);
                    tty.write(b, off, len);
                }
            }
        };
    }
}
