package org.jrdma.launcher;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.launcher.attach.ChannelStreams;
import org.jrdma.launcher.attach.Frame;
import org.jrdma.launcher.attach.FrameOutputStream;
import org.jrdma.launcher.attach.FrameType;
import org.osgi.framework.BundleContext;

/**
 * One attached client: its reader (this connection's thread) takes COMMAND and INTERRUPT frames, a worker
 * thread runs the commands one after the other in one Gogo session, and a writer thread sends their output
 * and EXIT frames. The socket is written only by the writer: interrupting the worker (Ctrl-C) must not close
 * the channel, as an interrupt does to a thread blocked in channel I/O.
 */
final class AttachConnection implements Runnable {

    /** Frames waiting for the writer: a slow client slows the command down, never the container's memory. */
    static final int QUEUE = 256;
    private static final Frame END = Frame.interrupt(); // the writer's poison pill (never sent)

    private final SocketChannel channel;
    private final BundleContext context;
    private final StartupGate gate;
    private final boolean trace;
    private final BlockingQueue<Frame> outgoing = new ArrayBlockingQueue<>(QUEUE);
    private final BlockingQueue<String> commands = new ArrayBlockingQueue<>(16);
    private final Thread worker;
    private final Thread writer;
    private volatile boolean interrupted;
    private volatile boolean closed;

    AttachConnection(SocketChannel channel, BundleContext context, StartupGate gate, boolean trace, int id) {
        this.channel = channel;
        this.context = context;
        this.gate = gate;
        this.trace = trace;
        this.worker = new Thread(this::work, "jrdma attach " + id + " command");
        this.writer = new Thread(this::write, "jrdma attach " + id + " writer");
        worker.setDaemon(true);
        writer.setDaemon(true);
    }

    @Override
    public void run() {
        writer.start();
        worker.start();
        InputStream in = ChannelStreams.in(channel);
        try {
            for (Frame f; !closed && (f = Frame.read(in)) != null; ) {
                switch (f.type()) {
                    case COMMAND -> {
                        if (!commands.offer(f.text())) {
                            queue(new Frame(FrameType.STDERR, "jrdma: too many queued command lines\n".getBytes(UTF_8)));
                            queue(Frame.exit(1));
                        }
                    }
                    case INTERRUPT -> {
                        interrupted = true;
                        worker.interrupt();
                    }
                    default -> throw new java.net.ProtocolException("attach: unexpected " + f.type() + " frame from a client");
                }
            }
        } catch (IOException e) {
            // the client went away or spoke nonsense: end the connection
        } finally {
            close();
        }
    }

    private void work() {
        PrintStream out = new PrintStream(new FrameOutputStream(FrameType.STDOUT, this::queue), true);
        PrintStream err = new PrintStream(new FrameOutputStream(FrameType.STDERR, this::queue), true);
        InputStream noInput = new ByteArrayInputStream(new byte[0]);
        try (CommandRunner runner = new CommandRunner(context, noInput, out, err, trace)) {
            while (!closed) {
                String line = commands.take();
                gate.await();
                interrupted = false;
                Thread.interrupted();
                int status = runner.run(line);
                if (interrupted) {
                    status = 130; // as a shell reports a command ended by SIGINT
                }
                Thread.interrupted();
                CommandRunner.flush(out, err);
                queue(Frame.exit(status));
            }
        } catch (InterruptedException | IllegalStateException e) {
            // the connection or the container closes
        } catch (RuntimeException e) {
            queue(new Frame(FrameType.STDERR, ("jrdma: " + e + "\n").getBytes(UTF_8)));
            queue(Frame.exit(1));
        }
    }

    /** Puts a frame in the writer's queue, waiting for room; an interrupt (Ctrl-C) does not lose output. */
    private void queue(Frame f) {
        boolean wasInterrupted = false;
        try {
            while (!closed) {
                try {
                    if (outgoing.offer(f, 100, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    wasInterrupted = true;
                }
            }
        } finally {
            if (wasInterrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void write() {
        OutputStream out = ChannelStreams.out(channel);
        try {
            for (Frame f; (f = outgoing.take()) != END; ) {
                f.writeTo(out);
            }
        } catch (InterruptedException | IOException e) {
            // closing, or the client went away
        } finally {
            close();
        }
    }

    /** Ends the connection: the running command is interrupted, the socket closed. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        worker.interrupt();
        outgoing.clear();
        outgoing.offer(END);
        try {
            channel.close();
        } catch (IOException e) {
            // already closed
        }
    }

    boolean isClosed() {
        return closed;
    }
}
