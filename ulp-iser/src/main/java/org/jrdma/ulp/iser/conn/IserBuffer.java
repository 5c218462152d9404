package org.jrdma.ulp.iser.conn;

import java.nio.ByteBuffer;

/**
 * A piece of registered memory: what a task's data lives in. The initiator advertises {@link #rkey()} and
 * {@link #va()} as its read or write STag in the iSER header; the target pulls or pushes with RDMA READ/WRITE
 * into its own buffers. Returned to its pool by {@link #close()} (once).
 */
public interface IserBuffer extends AutoCloseable {
    /** The bytes, position 0, limit = capacity: a view the caller may reposition. */
    ByteBuffer buffer();

    int capacity();

    int lkey();

    /** The STag a peer uses (rkey of the MR covering this buffer, with remote read and write rights). */
    int rkey();

    /** The virtual address of byte 0 of this buffer in its MR's address space. */
    long va();

    @Override
    void close();
}
