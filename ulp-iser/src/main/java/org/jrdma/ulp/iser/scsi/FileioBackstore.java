package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code fileio} backstore (LIO {@code target_core_file.c}): a file read and written with positional
 * FileChannel I/O, so concurrent commands need no lock. A missing file is created sparse (one byte written at
 * the end), an existing shorter one is extended the same way. SYNCHRONIZE CACHE is {@code force(false)}
 * (fdatasync, as LIO's vfs_fsync_range with datasync).
 *
 * <p>Thin (UNMAP, WRITE SAME with UNMAP, LBPME) when holes can be punched in the file: a discard
 * then deallocates the range as LIO's fd_do_unmap ({@link HolePunch}: util-linux fallocate(1), Java having no
 * fallocate(2)). Otherwise - or when asked not to, as LIO's default emulate_tpu=0 - fully provisioned: a
 * discard writes zeroes and VPD 0xb2 advertises nothing.
 */
public final class FileioBackstore extends AbstractBackstore {
    private static final int ZERO_CHUNK = 64 * 1024;

    private final Path file;
    private final long size;
    private final FileChannel channel;
    private final boolean thin;

    /**
     * Thin when the file system lets holes be punched.
     *
     * @param size bytes exported, rounded down to whole 512-byte blocks; 0 = the existing file's size
     * @throws IOException the file cannot be opened or created, or the size is 0 and so is the file's
     */
    public FileioBackstore(String name, Path file, long size) throws IOException {
        this(name, file, size, true);
    }

    /** @param thin false: fully provisioned even where holes could be punched (LIO's emulate_tpu=0) */
    public FileioBackstore(String name, Path file, long size, boolean thin) throws IOException {
        super("fileio", name);
        if (size < 0) {
            throw new IllegalArgumentException("fileio " + name + ": size " + size);
        }
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.SPARSE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long bytes = wholeBlocks(size == 0 ? channel.size() : size);
            if (bytes == 0) {
                throw new IOException("fileio " + name() + ": " + file + " is empty and no size given");
            }
            if (channel.size() < bytes) {
                channel.write(ByteBuffer.allocate(1), bytes - 1);
            }
            this.size = bytes;
            this.thin = thin && HolePunch.supported(file, channel.size());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public Path file() {
        return file;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void read(long offset, ByteBuffer dst) throws IOException {
        checkRange(offset, dst.remaining());
        long at = offset;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, at);
            if (n < 0) {
                throw new IOException("fileio " + name() + ": " + file + " shrank below " + size);
            }
            at += n;
        }
    }

    @Override
    public void write(long offset, ByteBuffer src) throws IOException {
        checkRange(offset, src.remaining());
        long at = offset;
        while (src.hasRemaining()) {
            at += channel.write(src, at);
        }
    }

    /** Punches a hole when thin, else writes zeroes (see the class comment). */
    @Override
    public void discard(long offset, long length) throws IOException {
        checkRange(offset, length);
        if (thin) {
            HolePunch.punch(file, offset, length);
            return;
        }
        ByteBuffer zeroes = ByteBuffer.allocate((int) Math.min(length, ZERO_CHUNK));
        long end = offset + length;
        for (long at = offset; at < end; ) {
            zeroes.clear().limit((int) Math.min(zeroes.capacity(), end - at));
            while (zeroes.hasRemaining()) {
                at += channel.write(zeroes, at);
            }
        }
    }

    @Override
    public void flush() throws IOException {
        channel.force(false);
    }

    @Override
    public boolean thinProvisioned() {
        return thin;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
