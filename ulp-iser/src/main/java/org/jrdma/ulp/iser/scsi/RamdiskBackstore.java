package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code ramdisk} backstore (LIO {@code rd_mcp}): memory in 64 KiB chunks allocated on first write, so a
 * 1 GiB ramdisk costs the heap only what was written; an unwritten chunk reads as zeroes. The chunk table is
 * two-level (segments of 1024 chunks = 64 MiB, also allocated on first write), so even a multi-TiB ramdisk
 * costs nothing until written. Thin provisioned: a discard covering whole chunks frees them.
 *
 * <p>Thread-safe for concurrent commands: segments and chunks are installed with compare-and-set, and commands
 * on disjoint byte ranges touch disjoint array elements (overlapping concurrent writes race as on any disk).
 */
public final class RamdiskBackstore extends AbstractBackstore {
    static final int CHUNK_SHIFT = 16;
    static final int CHUNK = 1 << CHUNK_SHIFT;
    private static final int SEGMENT_SHIFT = 10;
    private static final int SEGMENT = 1 << SEGMENT_SHIFT;
    /**
     * 64 TiB: the segment table (allocated at creation, one slot per 64 MiB) stays at most 1 Mi slots. A size
     * of petabytes made a table of hundreds of millions of slots, and targetcli's create ran out of heap.
     */
    static final long MAX_SIZE = 1L << 46;
    private final long size;
    private final AtomicReferenceArray<AtomicReferenceArray<byte[]>> segments;
    private volatile boolean closed;

    /** @param size bytes, rounded down to whole 512-byte blocks */
    public RamdiskBackstore(String name, long size) {
        super("ramdisk", name);
        long bytes = wholeBlocks(size);
        long chunks = (bytes + CHUNK - 1) >>> CHUNK_SHIFT;
        long segmentCount = (chunks + SEGMENT - 1) >>> SEGMENT_SHIFT;
        if (bytes <= 0 || bytes > MAX_SIZE) {
            throw new IllegalArgumentException("ramdisk " + name + ": size " + size + " out of range");
        }
        this.size = bytes;
        this.segments = new AtomicReferenceArray<>((int) segmentCount);
    }

    @Override
    public long size() {
        return size;
    }

    /** How many 64 KiB chunks hold data (for tests and statistics). */
    public long allocatedChunks() {
        long n = 0;
        for (int s = 0; s < segments.length(); s++) {
            AtomicReferenceArray<byte[]> segment = segments.get(s);
            for (int i = 0; segment != null && i < SEGMENT; i++) {
                n += segment.get(i) == null ? 0 : 1;
            }
        }
        return n;
    }

    @Override
    public void read(long offset, ByteBuffer dst) throws IOException {
        check(offset, dst.remaining());
        while (dst.hasRemaining()) {
            int at = (int) (offset & (CHUNK - 1));
            int n = Math.min(dst.remaining(), CHUNK - at);
            byte[] chunk = find(offset >>> CHUNK_SHIFT);
            if (chunk == null) {
                dst.put(dst.position(), ZEROES, 0, n).position(dst.position() + n);
            } else {
                dst.put(chunk, at, n);
            }
            offset += n;
        }
    }

    @Override
    public void write(long offset, ByteBuffer src) throws IOException {
        check(offset, src.remaining());
        while (src.hasRemaining()) {
            int at = (int) (offset & (CHUNK - 1));
            int n = Math.min(src.remaining(), CHUNK - at);
            src.get(allocate(offset >>> CHUNK_SHIFT), at, n);
            offset += n;
        }
    }

    @Override
    public void discard(long offset, long length) throws IOException {
        check(offset, length);
        long end = offset + length;
        while (offset < end) {
            long index = offset >>> CHUNK_SHIFT;
            int at = (int) (offset & (CHUNK - 1));
            int n = (int) Math.min(end - offset, CHUNK - at);
            AtomicReferenceArray<byte[]> segment = segments.get((int) (index >>> SEGMENT_SHIFT));
            if (segment != null) {
                int slot = (int) (index & (SEGMENT - 1));
                byte[] chunk = segment.get(slot);
                if (n == CHUNK) {
                    segment.set(slot, null);
                } else if (chunk != null) {
                    Arrays.fill(chunk, at, at + n, (byte) 0);
                }
            }
            offset += n;
        }
    }

    @Override
    public void flush() {
        // memory is as stable as it gets
    }

    /** Memory: a command never waits (LIO's rd runs in the submitter's context too). */
    @Override
    public boolean mayBlock() {
        return false;
    }

    @Override
    public boolean thinProvisioned() {
        return true;
    }

    @Override
    public void close() {
        closed = true;
        for (int s = 0; s < segments.length(); s++) {
            segments.set(s, null);
        }
    }

    private static final byte[] ZEROES = new byte[CHUNK];

    private byte[] find(long index) {
        AtomicReferenceArray<byte[]> segment = segments.get((int) (index >>> SEGMENT_SHIFT));
        return segment == null ? null : segment.get((int) (index & (SEGMENT - 1)));
    }

    private byte[] allocate(long index) {
        int s = (int) (index >>> SEGMENT_SHIFT);
        AtomicReferenceArray<byte[]> segment = segments.get(s);
        if (segment == null) {
            AtomicReferenceArray<byte[]> fresh = new AtomicReferenceArray<>(SEGMENT);
            segment = segments.compareAndExchange(s, null, fresh);
            segment = segment == null ? fresh : segment;
        }
        int slot = (int) (index & (SEGMENT - 1));
        byte[] chunk = segment.get(slot);
        if (chunk == null) {
            byte[] fresh = new byte[CHUNK];
            chunk = segment.compareAndExchange(slot, null, fresh);
            chunk = chunk == null ? fresh : chunk;
        }
        return chunk;
    }

    private void check(long offset, long length) throws IOException {
        if (closed) {
            throw new IOException("ramdisk " + name() + " is closed");
        }
        checkRange(offset, length);
    }
}
