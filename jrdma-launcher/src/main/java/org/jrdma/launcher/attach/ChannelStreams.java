package org.jrdma.launcher.attach;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Streams over a blocking socket channel that read and write independently. The JDK's
 * {@code Channels.newInputStream}/{@code newOutputStream} both hold the channel's blocking lock, so a write
 * waits for a blocked read to end: a connection that reads frames on one thread and writes on another
 * deadlocks on them.
 */
public final class ChannelStreams {

    private ChannelStreams() {
    }

    public static InputStream in(SocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                int n;
                do {
                    n = channel.read(ByteBuffer.wrap(b, off, len));
                } while (n == 0);
                return n;
            }
        };
    }

    public static OutputStream out(SocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] { (byte) b }, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
        };
    }
}
