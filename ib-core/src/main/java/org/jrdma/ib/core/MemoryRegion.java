package org.jrdma.ib.core;

import java.nio.ByteBuffer;

/** {@code struct ib_mr}: registered memory, addressed by I/O virtual address and reached by lkey/rkey. */
public interface MemoryRegion extends VerbsObject {
    ProtectionDomain pd();

    int lkey();

    int rkey();

    /** Start I/O virtual address. */
    long iova();

    long length();

    int access();

    /** {@code ib_rereg_mr}: new memory and/or access, same keys (index), as {@code IB_MR_REREG_*}. */
    void rereg(ByteBuffer buffer, long iova, int access);

    /** {@code ib_map_mr_sg} for a fast-registration MR: the mapping the next REG_MR makes valid. */
    void map(ByteBuffer buffer, long iova);

    /** {@code ib_dereg_mr}: refused with EBUSY while a memory window is bound to it. */
    void dereg();
}
