package org.jrdma.ulp.iser.conn;

import java.nio.ByteBuffer;

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

    /**
     * Registers memory a caller owns ({@code ib_reg_mr} of its pages, LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE) as one
     * buffer over all of {@code memory} (position 0 to capacity), so a peer's RDMA READ/WRITE moves its bytes with no
     * copy. {@link IserBuffer#close()} deregisters it; the pool's teardown deregisters what is left. Its rkey lives
     * across I/Os like the slabs', so it is only for connections that forbid the peer SEND_WITH_INV (the default).
     *
     * @throws IserTransportException when the pool is closed or the device refuses the registration
     */
    IserBuffer register(ByteBuffer memory);

    /** The largest buffer {@link #allocate} serves. */
    int maxLength();
}
