package org.jrdma.ulp.iser.scsi;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A backstore ({@code struct se_device}): bytes a LUN exports. Offsets and lengths are in bytes, always whole
 * blocks of {@link #blockSize()} and inside {@link #size()} (the LUN checks the CDB first).
 */
public interface Backstore extends AutoCloseable {
    /** The targetcli name: {@code rd0} of {@code /backstores/ramdisk/rd0}. */
    String name();

    /** The targetcli plugin: {@code ramdisk} or {@code fileio}. */
    String plugin();

    long size();

    int blockSize();

    /** Reads {@code dst.remaining()} bytes at {@code offset} into dst (advancing its position). */
    void read(long offset, ByteBuffer dst) throws IOException;

    /** Writes {@code src.remaining()} bytes at {@code offset} (advancing its position). */
    void write(long offset, ByteBuffer src) throws IOException;

    /** UNMAP / WRITE SAME with UNMAP: the range reads back as zeroes, and a thin backstore frees it. */
    void discard(long offset, long length) throws IOException;

    /** SYNCHRONIZE CACHE: written data on stable storage. */
    void flush() throws IOException;

    /**
     * Whether reads and writes may wait (a file, a device): the target then runs its commands on a worker thread,
     * else on the thread that has the command, saving a hand-off per command (memory).
     */
    default boolean mayBlock() {
        return true;
    }

    /** Whether discard frees space (LBPU/LBPWS in VPD 0xb2). */
    boolean thinProvisioned();

    @Override
    void close() throws IOException;
}
