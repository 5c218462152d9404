package org.jrdma.launcher.attach;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The standard output or error of a command run for an attached client: what is written becomes STDOUT or
 * STDERR frames handed to a sink (the connection's writer). Buffered up to a frame's size; flushed by the
 * PrintStream around it and after every command.
 */
public final class FrameOutputStream extends OutputStream {

    static final int BUFFER = 8192;

    private final FrameType type;
    private final Consumer<Frame> sink;
    private final byte[] buffer = new byte[BUFFER];
    private int count;

    public FrameOutputStream(FrameType type, Consumer<Frame> sink) {
        if (type != FrameType.STDOUT && type != FrameType.STDERR) {
            throw new IllegalArgumentException("output frames are STDOUT or STDERR, not " + type);
        }
        this.type = type;
        this.sink = sink;
    }

    @Override
    public synchronized void write(int b) {
        if (count == buffer.length) {
            flush();
        }
        buffer[count++] = (byte) b;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        while (len > 0) {
            if (count == buffer.length) {
                flush();
            }
            int n = Math.min(len, buffer.length - count);
            System.arraycopy(b, off, buffer, count, n);
            count += n;
            off += n;
            len -= n;
        }
    }

    @Override
    public synchronized void flush() {
        if (count > 0) {
            sink.accept(new Frame(type, Arrays.copyOf(buffer, count)));
            count = 0;
        }
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
