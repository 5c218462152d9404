package org.jrdma.ulp.iser.conn;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;

/**
 * An {@link IserBufferPool} of one PD: power-of-two size classes from 4 KiB to the configured maximum, each
 * carved out of slabs (32 buffers, 256 KiB to {@code slabBytes}) registered once (LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE), so the hot path never
 * registers memory. A buffer's rkey/VA are its slab MR's rkey and its address inside it. Slabs are registered on
 * first need and kept until {@link #destroy}; past {@code poolBytes} registered with every buffer of the class in
 * use, {@link #allocate} fails at once (no waiting: the session fails or retries the task).
 */
final class SlabBufferPool implements IserBufferPool {
    private static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
    private static final int SMALL_SLAB = 256 << 10;
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(IserConnectionConfig.MIN_BUFFER_LENGTH);

    private final ProtectionDomain pd;
    private final int maxLength;
    private final int slabBytes;
    private final long poolBytes;
    /** Free slots per class (index = log2(size) - 12); guarded by itself. */
    private final List<ArrayDeque<Slot>> free = new ArrayList<>();
    private final List<MemoryRegion> mrs = new ArrayList<>();
    private long registered;
    private boolean destroyed;

    SlabBufferPool(ProtectionDomain pd, IserConnectionConfig cfg) {
        this.pd = pd;
        this.maxLength = cfg.maxBufferLength();
        this.slabBytes = cfg.slabBytes();
        this.poolBytes = cfg.poolBytes();
        for (int size = IserConnectionConfig.MIN_BUFFER_LENGTH; size > 0 && size <= maxLength; size <<= 1) {
            free.add(new ArrayDeque<>());
        }
    }

    @Override
    public IserBuffer allocate(int length) {
        if (length < 0 || length > maxLength) {
            throw new IserTransportException("iSER buffer of " + length + " bytes: the pool serves 0.." + maxLength);
        }
        int cls = Math.max(0, 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1) - MIN_SHIFT);
        Slot s = take(cls);
        return new Lease(s);
    }

    @Override
    public IserBuffer register(ByteBuffer memory) {
        ByteBuffer whole = memory.duplicate().clear();
        MemoryRegion mr;
        synchronized (this) {
            if (destroyed) {
                throw new IserTransportException("iSER buffer pool: the connection is closed");
            }
            try {
                mr = pd.regMr(whole, ACCESS);
            } catch (RuntimeException e) {
                throw new IserTransportException("iSER: registering " + whole.capacity() + " bytes of caller memory: "
                        + e.getMessage(), e);
            }
            mrs.add(mr);
        }
        return new Registration(new Slot(whole, mr, 0));
    }

    @Override
    public int maxLength() {
        return maxLength;
    }

    /** Slabs registered (MRs), for leak checks and statistics. */
    synchronized int slabs() {
        return mrs.size();
    }

    synchronized long registeredBytes() {
        return registered;
    }

    private synchronized Slot take(int cls) {
        if (destroyed) {
            throw new IserTransportException("iSER buffer pool: the connection is closed");
        }
        ArrayDeque<Slot> q = free.get(cls);
        if (q.isEmpty()) {
            grow(cls, q);
        }
        return q.pop();
    }

    /** Registers one more slab for class {@code cls}, carved into its buffers. */
    private void grow(int cls, ArrayDeque<Slot> q) {
        int size = IserConnectionConfig.MIN_BUFFER_LENGTH << cls;
        // 32 buffers a slab, 256 KiB at least, at most slabBytes (but one buffer): small classes stay small
        long want = Math.min(Math.max((long) size * 32, SMALL_SLAB), slabBytes);
        int bytes = (int) Math.max(size, want / size * size);
        if (registered + bytes > poolBytes) {
            throw new IserTransportException("iSER buffer pool exhausted: every " + size + "-byte buffer is in use and "
                    + registered + " of " + poolBytes + " bytes are registered (raise poolBytes or queue fewer tasks)");
        }
        ByteBuffer slab = ByteBuffer.allocateDirect(bytes);
        MemoryRegion mr = pd.regMr(slab, ACCESS);
        mrs.add(mr);
        registered += bytes;
        for (int off = 0; off < bytes; off += size) {
            ByteBuffer view = slab.duplicate().position(off).limit(off + size).slice();
            q.add(new Slot(view, mr, off));
        }
    }

    private synchronized void release(Slot s) {
        if (!destroyed) {
            int cls = Integer.numberOfTrailingZeros(s.bytes.capacity()) - MIN_SHIFT;
            free.get(cls).push(s);
        }
    }

    /** {@code ib_dereg_mr} of one caller registration, unless the teardown did it already. */
    private synchronized void deregister(MemoryRegion mr) {
        if (!destroyed && mrs.remove(mr)) {
            try {
                mr.dereg();
            } catch (RuntimeException e) {
                // device gone: nothing left to free
            }
        }
    }

    /** {@code ib_dereg_mr} of every slab (the connection's teardown, before its PD goes). */
    synchronized void destroy() {
        destroyed = true;
        for (MemoryRegion mr : mrs) {
            try {
                mr.dereg();
            } catch (RuntimeException e) {
                // device gone: nothing left to free
            }
        }
        mrs.clear();
        free.forEach(ArrayDeque::clear);
        registered = 0;
    }

    /** One carved buffer: its bytes and where they are in the slab MR. */
    private record Slot(ByteBuffer bytes, MemoryRegion mr, int offset) {
    }

    /** What {@link #allocate} hands out: a slot until {@link #close}. */
    private class Lease implements IserBuffer {
        final Slot slot;
        private final AtomicBoolean closed = new AtomicBoolean();

        Lease(Slot slot) {
            this.slot = slot;
        }

        @Override public ByteBuffer buffer() { return slot.bytes.duplicate().clear(); }
        @Override public int capacity() { return slot.bytes.capacity(); }
        @Override public int lkey() { return slot.mr.lkey(); }
        @Override public int rkey() { return slot.mr.rkey(); }
        @Override public long va() { return slot.mr.iova() + slot.offset; }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                free();
            }
        }

        void free() {
            release(slot);
        }
    }

    /** What {@link #register} hands out: the caller's memory under its own MR until {@link #close}. */
    private final class Registration extends Lease {
        Registration(Slot slot) {
            super(slot);
        }

        @Override
        void free() {
            deregister(slot.mr);
        }
    }
}
