package org.jrdma.hw.rxe;

import java.nio.ByteBuffer;

import org.jrdma.sw.rdmavt.Segments;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * Copies between resolved memory ({@link Segments}) and packet buffers: bulk copies that allocate nothing. A
 * direct packet buffer (also a slice of a GRO receive buffer) is copied by address: its NIO views are new objects
 * per call for slices and for a pooled buffer's first use, which was most of a 64 KiB WRITE's garbage at the
 * responder (2 KB per message).
 */
final class RxeCopy {
    private static final boolean UNSAFE = PlatformDependent.hasUnsafe();

    private RxeCopy() {
    }

    /** Copies {@code len} bytes starting {@code from} bytes into {@code src} to {@code b} at {@code index}. */
    static void toPacket(Segments src, long from, ByteBuf b, int index, int len) {
        long pos = seek(src, from);
        int i = segment(pos);
        int off = offset(pos);
        while (len > 0) {
            int chunk = Math.min(len, src.length(i) - off);
            ByteBuffer m = src.buffer(i);
            int at = src.offset(i) + off;
            if (b.hasArray()) {
                m.get(at, b.array(), b.arrayOffset() + index, chunk);
            } else if (byAddress(b, m)) {
                copy(b, index, m, at, chunk, false);
            } else if (b.nioBufferCount() == 1) {
                ByteBuffer t = b.internalNioBuffer(index, chunk);
                t.put(t.position(), m, at, chunk);
            } else {
                for (int k = 0; k < chunk; k++) {
                    b.setByte(index + k, m.get(at + k));
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
            ByteBuffer m = dst.buffer(i);
            int to = dst.offset(i) + off;
            if (b.hasArray()) {
                m.put(to, b.array(), b.arrayOffset() + index, chunk);
            } else if (byAddress(b, m) && !m.isReadOnly()) {
                copy(b, index, m, to, chunk, true);
            } else if (b.nioBufferCount() == 1) {
                ByteBuffer s = b.internalNioBuffer(index, chunk);
                m.put(to, s, s.position(), chunk);
            } else {
                m.put(to, b.nioBuffer(index, chunk), 0, chunk);
            }
            len -= chunk;
            index += chunk;
            i++;
            off = 0;
        }
    }

    /** Whether {@link #copy} serves packet {@code b} and memory {@code m}: b has an address, m is direct or an array. */
    private static boolean byAddress(ByteBuf b, ByteBuffer m) {
        return UNSAFE && b.hasMemoryAddress() && (m.isDirect() || m.hasArray());
    }

    /**
     * Copies {@code len} bytes between packet {@code b} at {@code index} and memory {@code m} at {@code at}: into
     * {@code m} if {@code toMemory}, else out of it. Both ranges are checked against their buffers' capacities
     * first: the raw copy has no bounds of its own, and a wrong range must fail here, not write outside a buffer.
     */
    private static void copy(ByteBuf b, int index, ByteBuffer m, int at, int len, boolean toMemory) {
        long p = b.memoryAddress() + java.util.Objects.checkFromIndexSize(index, len, b.capacity());
        java.util.Objects.checkFromIndexSize(at, len, m.capacity());
        if (m.isDirect()) {
            long a = PlatformDependent.directBufferAddress(m) + at;
            PlatformDependent.copyMemory(toMemory ? p : a, toMemory ? a : p, len);
        } else if (toMemory) {
            PlatformDependent.copyMemory(p, m.array(), m.arrayOffset() + at, len);
        } else {
            PlatformDependent.copyMemory(m.array(), m.arrayOffset() + at, p, len);
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
