package org.jrdma.launcher.attach;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** One frame of the attach protocol ({@link FrameType}) and its codec. */
public record Frame(FrameType type, byte[] payload) {

    /** The largest payload accepted: a command line or a chunk of output is far smaller. */
    public static final int MAX_PAYLOAD = 1 << 20;
    static final int HEADER = 5;

    public Frame {
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("frame payload of " + payload.length + " bytes exceeds " + MAX_PAYLOAD);
        }
    }

    public static Frame command(String line) {
        return new Frame(FrameType.COMMAND, line.getBytes(StandardCharsets.UTF_8));
    }

    public static Frame interrupt() {
        return new Frame(FrameType.INTERRUPT, new byte[0]);
    }

    public static Frame exit(int status) {
        return new Frame(FrameType.EXIT, ByteBuffer.allocate(4).putInt(status).array());
    }

    /** The payload as text (COMMAND). */
    public String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** The exit status (EXIT). */
    public int status() {
        if (type != FrameType.EXIT || payload.length != 4) {
            throw new IllegalStateException("not an EXIT frame: " + type + " with " + payload.length + " bytes");
        }
        return ByteBuffer.wrap(payload).getInt();
    }

    /** The frame as written on the socket. */
    public byte[] encode() {
        ByteArrayOutputStream b = new ByteArrayOutputStream(HEADER + payload.length);
        b.write(type.code());
        b.writeBytes(ByteBuffer.allocate(4).putInt(payload.length).array());
        b.writeBytes(payload);
        return b.toByteArray();
    }

    /** Writes the frame in one call (callers that share the stream serialize on it). */
    public void writeTo(OutputStream out) throws IOException {
        out.write(encode());
        out.flush();
    }

    /**
     * Reads the next frame; {@code null} at a clean end of the stream (between frames).
     *
     * @throws ProtocolException for an unknown type or a length out of range
     * @throws EOFException when the stream ends inside a frame
     */
    public static Frame read(InputStream in) throws IOException {
        int code = in.read();
        if (code < 0) {
            return null;
        }
        FrameType type = FrameType.of(code);
        if (type == null) {
            throw new ProtocolException("attach: unknown frame type " + code);
        }
        DataInputStream data = new DataInputStream(in);
        int length = data.readInt();
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new ProtocolException("attach: " + type + " frame length " + length + " out of range 0.." + MAX_PAYLOAD);
        }
        byte[] payload = new byte[length];
        data.readFully(payload);
        if (type == FrameType.EXIT && length != 4) {
            throw new ProtocolException("attach: EXIT frame with " + length + " bytes (4 expected)");
        }
        return new Frame(type, payload);
    }
}
