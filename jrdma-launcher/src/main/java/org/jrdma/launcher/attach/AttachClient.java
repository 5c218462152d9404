package org.jrdma.launcher.attach;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;

import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code ./jrdma} attached to a running service container: sends the command line over the container's
 * Unix-domain socket, copies the command's output to stdout and stderr, and exits with its status, as batch
 * mode does. Without a command line, reads lines from stdin and runs each in one session (a prompt when
 * stdin is a terminal). Ctrl-C interrupts the running command (its status is then 130); a second Ctrl-C
 * while it has not ended leaves at once. Plain Java: it runs outside the framework.
 *
 * <pre>java -cp jrdma-launcher.jar org.jrdma.launcher.attach.AttachClient SOCKET [COMMAND LINE...]</pre>
 * Exit status: the command's; 2 for a usage error; 3 when the container cannot be reached (the
 * script then says so); 1 when the connection breaks mid-command.
 */
public final class AttachClient {

    /** The container is not there (no socket, refused): nothing ran. */
    public static final int UNREACHABLE = 3;
    static final int BROKEN = 1;
    static final int INTERRUPTED = 130;

    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;
    private final OutputStream stdout;
    private final OutputStream stderr;
    private volatile boolean running;
    private volatile int interrupts;

    AttachClient(SocketChannel channel, OutputStream stdout, OutputStream stderr) {
        this.channel = channel;
        this.in = ChannelStreams.in(channel);
        this.out = ChannelStreams.out(channel);
        this.stdout = stdout;
        this.stderr = stderr;
    }

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: AttachClient SOCKET [COMMAND LINE...]");
            System.exit(2);
        }
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(Path.of(args[0])));
        } catch (IOException e) {
            err.println("jrdma: cannot attach to " + args[0] + ": " + e.getMessage());
            System.exit(UNREACHABLE);
            return;
        }
        AttachClient client = new AttachClient(channel, new FileOutputStream(FileDescriptor.out), err);
        client.onInterrupt();
        int status;
        if (args.length > 1) {
            status = client.run(String.join(" ", java.util.Arrays.copyOfRange(args, 1, args.length)));
        } else {
            status = client.interactive(System.console() != null);
        }
        System.exit(status);
    }

    /** Runs one command line; returns its status. */
    int run(String line) {
        try {
            send(Frame.command(line));
            return awaitExit();
        } catch (IOException e) {
            return broken(e);
        }
    }

    /** Runs the lines of stdin one after the other in one session; 0 at the end of the input. */
    int interactive(boolean prompt) {
        BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            while (true) {
                if (prompt) {
                    stdout.write("g! ".getBytes(StandardCharsets.UTF_8));
                    stdout.flush();
                }
                String line = lines.readLine();
                if (line == null) {
                    return 0;
                }
                if (line.isBlank()) {
                    continue;
                }
                send(Frame.command(line));
                awaitExit();
            }
        } catch (IOException e) {
            return broken(e);
        }
    }

    private int awaitExit() throws IOException {
        running = true;
        interrupts = 0;
        try {
            for (Frame f; (f = Frame.read(in)) != null; ) {
                switch (f.type()) {
                    case STDOUT -> write(stdout, f.payload());
                    case STDERR -> write(stderr, f.payload());
                    case EXIT -> {
                        return f.status();
                    }
                    default -> throw new java.net.ProtocolException("attach: unexpected " + f.type() + " frame from the container");
                }
            }
            throw new java.io.EOFException("the container closed the connection");
        } finally {
            running = false;
        }
    }

    private static void write(OutputStream s, byte[] b) throws IOException {
        s.write(b);
        s.flush();
    }

    private void send(Frame f) throws IOException {
        synchronized (out) {
            f.writeTo(out);
        }
    }

    private int broken(IOException e) {
        try {
            stderr.write(("jrdma: lost the container: " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            stderr.flush();
        } catch (IOException ignored) {
            // nothing left to tell
        }
        return BROKEN;
    }

    /** Ctrl-C: the first interrupts the running command, a second one leaves; at a prompt it is ignored. */
    void interrupt() {
        if (!running) {
            return;
        }
        if (++interrupts > 1) {
            Runtime.getRuntime().halt(INTERRUPTED);
        }
        try {
            send(Frame.interrupt());
        } catch (IOException e) {
            Runtime.getRuntime().halt(INTERRUPTED);
        }
    }

    /** Whether a command runs (the client waits for its EXIT). */
    boolean running() {
        return running;
    }

    /** Ctrl-C as the signal handler sends it, without the halt of a second one (tests). */
    void interruptOnce() {
        interrupts = 0;
        interrupt();
    }

    private void onInterrupt() {
        Signals.handle("INT", this::interrupt);
    }

}
