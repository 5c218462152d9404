package org.jrdma.ib.tools;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The TCP side channel of the pingpong tools, on blocking NIO channels so that every wait (connect,
 * accept, read) ends when the thread is interrupted (Gogo's Ctrl-C, a stopping bundle): the
 * channel is closed and {@link ClosedByInterruptException} thrown.
 */
final class Tcp {
    private Tcp() {
    }

    /**
     * {@code getaddrinfo(host, port)} then {@code connect} to each address in turn, as the real
     * client does; null when none accepted.
     */
    static SocketChannel connect(String host, int port) throws UnknownHostException, ClosedByInterruptException {
        InetAddress[] addresses = InetAddress.getAllByName(host);
        for (InetAddress a : addresses) {
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                ch.connect(new InetSocketAddress(a, port));
                return ch;
            } catch (ClosedByInterruptException e) {
                closeQuietly(ch);
                throw e;
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new ClosedByInterruptException();
            }
        }
        return null;
    }

    /** {@code getaddrinfo(NULL, port, AI_PASSIVE)}, {@code SO_REUSEADDR}, {@code bind}, {@code listen(1)}. */
    static ServerSocketChannel listen(int port) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(port), 1);
            return ch;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    /** Reads until {@code n} bytes came or the peer closed; returns what came (possibly fewer). */
    static byte[] read(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                break;
            }
        }
        byte[] got = new byte[b.position()];
        b.flip().get(got);
        return got;
    }

    static void write(SocketChannel ch, byte[] data) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(data);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** What {@code perror} would append for a failed or short read/write: {@code strerror(errno)}. */
    static String strerror(IOException e) {
        if (e == null) {
            return "Success"; // a short read (EOF) leaves errno alone
        }
        String m = e.getMessage();
        if (e instanceof SocketException && m != null) {
            if (m.startsWith("Connection reset")) {
                return "Connection reset by peer";
            }
            if (m.contains("Broken pipe")) {
                return "Broken pipe";
            }
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // nothing more to do
        }
    }
}
