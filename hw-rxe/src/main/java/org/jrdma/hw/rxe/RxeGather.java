package org.jrdma.hw.rxe;

import java.nio.ByteBuffer;

import org.jrdma.sw.rdmavt.Segments;

import io.netty.buffer.ByteBuf;

/**
 * Gathered sends: a packet whose payload is not copied into a packet buffer but sent straight from the memory
 * region. Its headers go into a small buffer (BTH and extension headers, then pad and ICRC), the ICRC is computed
 * over headers, region bytes and pad ({@link RxeXmit#sendGathered}), and the wire gathers the three parts with
 * iovecs ({@link RxeWire#sendGathered}), so the kernel's copy into the socket buffer is the only copy on the send
 * side. The bytes on the wire are the same as those of a copied packet. Only for payloads within one direct
 * segment, and for wires that gather ({@link RxeWire#gathers}); {@code -Djrdma.rxe.gather=false} turns it off.
 *
 * <p>One instance per requester (per thread): {@link #find} describes where the next packet's payload lies.
 */
public final class RxeGather {
    /** Whether the requester sends payloads from the memory region where the wire can ({@code -Djrdma.rxe.gather}). */
    static final boolean ENABLED = !"false".equals(System.getProperty("jrdma.rxe.gather"))
            && io.netty.util.internal.PlatformDependent.hasUnsafe();
    /**
     * Smaller payloads are copied: an iovec more per packet costs the kernel more than copying a few hundred
     * bytes here (and a round trip's small packets leave by sendto, which gathers nothing).
     */
    static final int MIN_PAYLOAD = Integer.getInteger("jrdma.rxe.gather.min", 1024);

    /** The segment's buffer (direct), the payload's index in it and its length. */
    ByteBuffer buffer;
    int index;
    int length;

    /**
     * Finds {@code len} bytes starting {@code from} bytes into {@code src}: true if they lie in one direct
     * segment (then {@link #buffer}, {@link #index} and {@link #length} describe them).
     */
    boolean find(Segments src, long from, int len) {
        long pos = RxeCopy.seek(src, from);
        int i = RxeCopy.segment(pos);
        int skip = RxeCopy.offset(pos);
        if (i == src.count() || (long) skip + len > src.length(i)) {
            return false;
        }
        ByteBuffer b = src.buffer(i);
        if (!b.isDirect()) {
            return false;
        }
        buffer = b;
        index = src.offset(i) + skip;
        length = len;
        return true;
    }

    /** Forgets the region (the requester holds no reference to it between packets). */
    void clear() {
        buffer = null;
    }

    /**
     * The whole packet in one buffer, for a wire that cannot gather it (or not now): {@code head}'s headers, the
     * payload, then the rest of {@code head} (pad, ICRC). Releases {@code head}.
     */
    public static ByteBuf join(ByteBuf head, int hdrLen, ByteBuffer payload, int payloadIndex, int payloadLen) {
        int headLen = head.readableBytes();
        int ri = head.readerIndex();
        ByteBuf p = PacketPool.buffer(headLen + payloadLen);
        try {
            p.writeBytes(head, ri, hdrLen);
            p.writeBytes(payload.duplicate().clear().position(payloadIndex).limit(payloadIndex + payloadLen));
            p.writeBytes(head, ri + hdrLen, headLen - hdrLen);
        } catch (RuntimeException e) {
            p.release();
            throw e;
        } finally {
            head.release();
        }
        return p;
    }
}
