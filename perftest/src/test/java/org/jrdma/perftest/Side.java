package org.jrdma.perftest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbCore;

/** One side of a perftest run (one "process") on its own thread, stdout and stderr captured, every wait bounded. */
final class Side {
    final Perftest tool;
    final String[] args;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    /** stdout and stderr as one terminal shows them, interleaved in the order they were written. */
    private final ByteArrayOutputStream tty = new ByteArrayOutputStream();
    final CountDownLatch listening = new CountDownLatch(1);
    /** A copy of the run's registered buffer at its end. */
    final AtomicReference<byte[]> buffer = new AtomicReference<>();
    private final Thread thread;
    private volatile int status = -1;

    private Side(String name, IbCore core, RdmaCm cm, String... args) {
        this.tool = Perftest.named(name);
        this.args = args;
        tool.listening = listening::countDown;
        tool.beforeRelease = b -> {
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            buffer.set(copy);
        };
        PrintStream o = new PrintStream(tee(out), true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(tee(err), true, StandardCharsets.UTF_8);
        thread = new Thread(() -> status = tool.run(core, cm, o, e, args), name + " " + String.join(" ", args));
        thread.setDaemon(true);
    }

    static Side start(String name, IbCore core, RdmaCm cm, String... args) {
        Side s = new Side(name, core, cm, args);
        s.thread.start();
        return s;
    }

    static Side server(String name, IbCore core, RdmaCm cm, String... args) throws InterruptedException {
        Side s = start(name, core, cm, args);
        if (!s.listening.await(20, TimeUnit.SECONDS)) {
            s.thread.interrupt();
            throw new AssertionError("the server did not listen within 20 s: " + s.err());
        }
        return s;
    }

    int await(long seconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(10000);
            throw new AssertionError(tool.name() + " did not finish in " + seconds + " s; out:\n" + out() + "\nerr:\n" + err());
        }
        return status;
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    String tty() {
        synchronized (tty) {
            return tty.toString(StandardCharsets.UTF_8);
        }
    }

    private OutputStream tee(ByteArrayOutputStream own) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                own.write(b);
                synchronized (tty) {
                    tty.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                own.write(b, off, len);
                synchronized (tty) {
                    tty.write(b, off, len);
                }
            }
        };
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static ByteBuffer wrap(byte[] b) {
        return ByteBuffer.wrap(b);
    }
}
