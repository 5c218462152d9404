package org.jrdma.ulp.iser.conn;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.Sge;

/**
 * The registered buffers SENDs are encoded into (isert's {@code tx_desc}s): one slab, one MR, registered at
 * connection setup; a buffer is taken when its SEND is posted and given back at its completion.
 */
final class SendBuffers {
    private final MemoryRegion mr;
    private final ArrayBlockingQueue<Buffer> free;
    private final int length;
    private final int count;

    SendBuffers(ProtectionDomain pd, int count, int length) {
        this.length = length;
        this.count = count;
        ByteBuffer slab = ByteBuffer.allocateDirect(count * length);
        mr = pd.regMr(slab, Access.LOCAL_WRITE);
        free = new ArrayBlockingQueue<>(count);
        for (int i = 0; i < count; i++) {
            ByteBuffer view = slab.duplicate().position(i * length).limit((i + 1) * length).slice();
            free.add(new Buffer(Unpooled.wrappedBuffer(view),
                    new Sge[] {new Sge(mr.iova() + (long) i * length, 0, mr.lkey())}));
        }
    }

    int length() {
        return length;
    }

    /** How many buffers there are. */
    int count() {
        return count;
    }

    /** A free buffer, or null when every one is on the wire. */
    Buffer take() {
        return free.poll();
    }

    void give(Buffer b) {
        free.offer(b);
    }

    void destroy() {
        try {
            mr.dereg();
        } catch (RuntimeException e) {
            // device gone
        }
    }

    /** One buffer: a reusable ByteBuf over its bytes and the one-SGE list that sends them. */
    record Buffer(ByteBuf bytes, Sge[] sgl) {
    }
}
