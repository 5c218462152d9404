package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code ramdisk} backstore (LIO {@code rd_mcp}): memory in 64 KiB chunks allocated on first write, so a
 * 1 GiB ramdisk costs the heap only what was written; an unwritten chunk reads as zeroes. Thin provisioned:
 * a discard covering whole chunks frees them.
 *
 * <p>Thread-safe for concurrent commands: a chunk is installed with compare-and-set, and commands on disjoint
 * byte ranges touch disjoint array elements (overlapping concurrent writes race as on any disk).
 */
public final class RamdiskBackstore implements Backstore {
    static final int CHUNK_SHIFT = 16;
    static final int CHUNK = 1 << CHUNK_SHIFT;
    public static final int BLOCK_SIZE = 512;

    private final String name;
    private final long size;
    private final AtomicReferenceArray<byte[]> chunks;
    private volatile boolean closed;

    /** @param size bytes, rounded down to whole 512-byte blocks */
    public RamdiskBackstore(String name, long size) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("ramdisk needs a name");
        }
        long blocks = size / BLOCK_SIZE;
        long chunkCount = (blocks * BLOCK_SIZE + CHUNK - 1) >>> CHUNK_SHIFT;
        if (blocks <= 0 || chunkCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("ramdisk " + name + ": size " + size + " out of range");
        }
        this.name = name;
        this.size = blocks * BLOCK_SIZE;
        this.chunks = new AtomicReferenceArray<>((int) chunkCount);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String plugin() {
        return "ramdisk";
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public int blockSize() {
        return BLOCK_SIZE;
    }

    /** How many 64 KiB chunks hold data (for tests and the config tree's statistics). */
    public int allocatedChunks() {
        int n = 0;
        for (int i = 0; i < chunks.length(); i++) {
            n += chunks.get(i) == null ? 0 : 1;
        }
        return n;
    }

    @Override
    public void read(long offset, ByteBuffer dst) throws IOException {
        check(offset, dst.remaining());
        while (dst.hasRemaining()) {
            int index = (int) (offset >>> CHUNK_SHIFT);
            int at = (int) (offset & (CHUNK - 1));
            int n = Math.min(dst.remaining(), CHUNK - at);
            byte[] chunk = chunks.get(index);
            if (chunk == null) {
                zero(dst, n);
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
            int index = (int) (offset >>> CHUNK_SHIFT);
            int at = (int) (offset & (CHUNK - 1));
            int n = Math.min(src.remaining(), CHUNK - at);
            src.get(chunk(index), at, n);
            offset += n;
        }
    }

    @Override
    public void discard(long offset, long length) throws IOException {
        check(offset, length);
        long end = offset + length;
        while (offset < end) {
            int index = (int) (offset >>> CHUNK_SHIFT);
            int at = (int) (offset & (CHUNK - 1));
            int n = (int) Math.min(end - offset, CHUNK - at);
            if (n == CHUNK) {
                chunks.set(index, null);
            } else {
                byte[] chunk = chunks.get(index);
                if (chunk != null) {
                    java.util.Arrays.fill(chunk, at, at + n, (byte) 0);
                }
            }
            offset += n;
        }
    }

    @Override
    public void flush() {
        // memory is as stable as it gets
    }

    @Override
    public boolean thinProvisioned() {
        return true;
    }

    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < chunks.length(); i++) {
            chunks.set(i, null);
        }
    }

    private byte[] chunk(int index) {
        byte[] chunk = chunks.get(index);
        if (chunk == null) {
            byte[] fresh = new byte[CHUNK];
            chunk = chunks.compareAndExchange(index, null, fresh);
            if (chunk == null) {
                chunk = fresh;
            }
        }
        return chunk;
    }

    private void check(long offset, long length) throws IOException {
        if (closed) {
            throw new IOException("ramdisk " + name + " is closed");
        }
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IOException("ramdisk " + name + ": range " + offset + "+" + length + " beyond " + size);
        }
    }

    private static void zero(ByteBuffer dst, int n) {
        for (int i = 0; i < n; i++) {
            dst.put((byte) 0);
        }
    }
}
