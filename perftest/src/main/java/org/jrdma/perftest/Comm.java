package org.jrdma.perftest;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * {@code struct perftest_comm}: the side channel of perftest ({@code perftest_communication.c}). The
 * client writes first and the server reads first in every exchange ({@code ctx_xchg_data},
 * {@code ctx_hand_shake}). Over TCP (the default, "Ethernet") the keys travel as ASCII records and
 * the connection ends with {@code "done"}; over the RDMA CM ({@code -R}) they travel as the binary
 * struct in RC SENDs ({@link CmComm}).
 */
abstract class Comm implements AutoCloseable {
    final boolean client;

    Comm(boolean client) {
        this.client = client;
    }

    abstract void write(byte[] data) throws IOException;

    /** Exactly {@code n} bytes, or an IOException. */
    abstract byte[] read(int n) throws IOException;

    abstract byte[] keyOf(Dest d, boolean withGid);

    abstract Dest parseKey(byte[] msg, boolean withGid);

    abstract int keySize(boolean withGid);

    @Override
    public abstract void close();

    /** {@code ctx_xchg_data}. */
    byte[] xchg(byte[] mine) throws IOException {
        if (client) {
            write(mine);
            return read(mine.length);
        }
        byte[] rem = read(mine.length);
        write(mine);
        return rem;
    }

    /** {@code ctx_hand_shake}; null when the peer's record does not parse. */
    Dest handShake(Dest my, boolean withGid) throws IOException {
        byte[] rem;
        if (client) {
            write(keyOf(my, withGid));
            rem = read(keySize(withGid));
        } else {
            rem = read(keySize(withGid));
            write(keyOf(my, withGid));
        }
        return parseKey(rem, withGid);
    }

    /** {@code ctx_close_connection}: one more handshake, then {@code "done"} over TCP. */
    void closeConnection(Dest my, boolean withGid) throws IOException {
        handShake(my, withGid);
        done();
    }

    void done() throws IOException {
    }

    /** The TCP channel on port 18515. */
    static final class Tcp extends Comm {
        final SocketChannel ch;

        Tcp(SocketChannel ch, boolean client) {
            super(client);
            this.ch = ch;
        }

        /** {@code ethernet_client_connect}: null if no address accepted. */
        static Tcp connect(String host, int port) throws IOException {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!(a instanceof java.net.Inet4Address)) {
                    continue; // hints.ai_family = AF_INET
                }
                SocketChannel ch = SocketChannel.open();
                try {
                    ch.connect(new InetSocketAddress(a, port));
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    return new Tcp(ch, true);
                } catch (java.nio.channels.ClosedByInterruptException e) {
                    throw e;
                } catch (IOException e) {
                    ch.close();
                }
            }
            return null;
        }

        /** {@code ethernet_server_connect}: SO_REUSEADDR, bind, listen(1), accept one, close the listener. */
        static Tcp accept(int port, Runnable listening) throws IOException {
            try (ServerSocketChannel l = ServerSocketChannel.open()) {
                l.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                l.bind(new InetSocketAddress(port), 1);
                if (listening != null) {
                    listening.run();
                }
                SocketChannel ch = l.accept();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                return new Tcp(ch, false);
            }
        }

        @Override
        void write(byte[] data) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        @Override
        byte[] read(int n) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    throw new IOException("short read");
                }
            }
            return b.array();
        }

        @Override
        byte[] keyOf(Dest d, boolean withGid) {
            return d.key(withGid);
        }

        @Override
        Dest parseKey(byte[] msg, boolean withGid) {
            return Dest.parseKey(msg, withGid);
        }

        @Override
        int keySize(boolean withGid) {
            return withGid ? Dest.KEY_MSG_SIZE_GID : Dest.KEY_MSG_SIZE;
        }

        @Override
        void done() throws IOException {
            write("done\0".getBytes(StandardCharsets.US_ASCII));
        }

        @Override
        public void close() {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing more to do
            }
        }
    }
}
