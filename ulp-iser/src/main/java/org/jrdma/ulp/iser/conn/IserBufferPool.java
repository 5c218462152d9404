package org.jrdma.ulp.iser.conn;

/**
 * Registered buffers, registered once (no MR registration per I/O on the hot path, as the issue asks):
 * Linux's initiator uses fast-registration MRs per task; a pool of pre-registered slabs gives the same
 * effect here.
 */
public interface IserBufferPool {
    /**
     * A buffer of at least {@code length} bytes.
     *
     * @throws IserTransportException when {@code length} is more than the pool serves or the pool stays
     *                                exhausted (the caller fails the task with a clear error)
     */
    IserBuffer allocate(int length);

    /** The largest buffer {@link #allocate} serves. */
    int maxLength();
}
