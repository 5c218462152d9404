package org.jrdma.ulp.iser;

import java.nio.ByteBuffer;

/**
 * Memory a session registered for I/O with no copy (what Linux's ib_iser does with the bio's pages: it maps them
 * with a fast registration and the target moves the bytes straight in and out). A READ into it is placed by the
 * target's RDMA WRITE, a WRITE from it is pulled by the target's RDMA READ; the {@link ByteBuffer} variants of
 * {@link IserSession#read}/{@link IserSession#write} copy through the session's own registered buffers instead.
 * Obtained from {@link IserSession#allocateBuffer} (the session's memory, lent) or {@link IserSession#registerBuffer}
 * (the caller's direct memory, registered once and reused for every I/O). Registered on the session's connection
 * when first used there (again after a reinstatement); {@link #close()} deregisters it, at once or, with I/O still
 * in flight, when the last of it ends. Its bytes are not to be touched while an I/O on them is in flight. A
 * connection whose target may invalidate the initiator's STags (SEND_WITH_INV allowed in the CM private data) gets
 * copies instead: a registration that outlives one I/O cannot be handed to it.
 */
public interface IserIoBuffer extends AutoCloseable {

    /** A view of the whole memory: position 0, limit = capacity (the caller may reposition it). */
    ByteBuffer buffer();

    int capacity();

    /** Deregisters the memory (after the I/O on it ended); I/O started afterwards is refused. Idempotent. */
    @Override
    void close();
}
