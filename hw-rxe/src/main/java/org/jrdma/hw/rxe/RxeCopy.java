package org.jrdma.hw.rxe;

import org.jrdma.sw.rdmavt.Segments;

import io.netty.buffer.ByteBuf;

/**
 * Copies between resolved memory ({@link Segments}) and packet buffers: bulk copies, without allocating for heap
 * buffers and for plain (pooled) direct buffers, whose internal NIO view is repositioned instead.
 */
final class RxeCopy {
    private RxeCopy() {
    }

    /** Copies {@code len} bytes starting {@code from} bytes into {@code src} to {@code b} at {@code index}. */
    static void toPacket(Segments src, long from, ByteBuf b, int index, int len) {
        long pos = seek(src, from);
        int i = segment(pos);
        int off = offset(pos);
        while (len > 0) {
            int chunk = Math.min(len, src.length(i) - off);
            if (b.hasArray()) {
                src.buffer(i).get(src.offset(i) + off, b.array(), b.arrayOffset() + index, chunk);
            } else if (b.nioBufferCount() == 1) {
                java.nio.ByteBuffer t = b.internalNioBuffer(index, chunk);
                t.put(t.position(), src.buffer(i), src.offset(i) + off, chunk);
            } else {
                for (int k = 0; k < chunk; k++) {
                    b.setByte(index + k, src.buffer(i).get(src.offset(i) + off + k));
                }
            }
            len -= chunk;
            index += chunk;
            i++;
            off = 0;
        }
    }

    /** Copies {@code len} bytes of {@code b} at {@code index} into {@code dst}, starting {@code at} bytes in. */
    static void fromPacket(ByteBuf b, int index, Segments dst, long at, int len) {
        long pos = seek(dst, at);
        int i = segment(pos);
        int off = offset(pos);
        while (len > 0) {
            int chunk = Math.min(len, dst.length(i) - off);
            if (b.hasArray()) {
                dst.buffer(i).put(dst.offset(i) + off, b.array(), b.arrayOffset() + index, chunk);
            } else if (b.nioBufferCount() == 1) {
                java.nio.ByteBuffer s = b.internalNioBuffer(index, chunk);
                dst.buffer(i).put(dst.offset(i) + off, s, s.position(), chunk);
            } else {
                dst.buffer(i).put(dst.offset(i) + off, b.nioBuffer(index, chunk), 0, chunk);
            }
            len -= chunk;
            index += chunk;
            i++;
            off = 0;
        }
    }

    /**
     * Where byte {@code at} of {@code s} lies: its segment in the high and its offset in that segment in the low
     * 32 bits ({@link #segment}, {@link #offset}); past the end, the segment is {@code s.count()}.
     */
    static long seek(Segments s, long at) {
        int i = 0;
        long skip = at;
        while (i < s.count() && skip >= s.length(i)) {
            skip -= s.length(i);
            i++;
        }
        return (long) i << 32 | skip & 0xffffffffL;
    }

    static int segment(long pos) {
        return (int) (pos >>> 32);
    }

    static int offset(long pos) {
        return (int) pos;
    }

    /** Copies from a byte array (inline data). */
    static void toPacket(byte[] src, long from, ByteBuf b, int index, int len) {
        b.setBytes(index, src, (int) from, len);
    }
}
