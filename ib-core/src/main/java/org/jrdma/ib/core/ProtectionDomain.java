package org.jrdma.ib.core;

import java.nio.ByteBuffer;

/** {@code struct ib_pd}: groups QPs, SRQs, MRs, MWs and AHs; a key works only inside its PD. */
public interface ProtectionDomain extends VerbsObject {
    /** {@code ib_reg_mr}: registers {@code buffer} (position to limit) at an I/O virtual address ib-core assigns. */
    MemoryRegion regMr(ByteBuffer buffer, int access);

    /** Registers {@code buffer} (position to limit) at the given I/O virtual address. */
    MemoryRegion regMr(ByteBuffer buffer, long iova, int access);

    /** {@code ib_alloc_mr}: a fast-registration MR for at most {@code maxNumSg} pages. */
    MemoryRegion allocMr(MrType type, int maxNumSg);

    MemoryWindow allocMw(MwType type);

    QueuePair createQp(QpInitAttr attr);

    SharedReceiveQueue createSrq(SrqInitAttr attr);

    /** {@code rdma_create_ah}. */
    AddressHandle createAh(AhAttr attr);

    /** {@code ib_dealloc_pd}: refused with EBUSY while an MR, MW, QP, SRQ or AH still uses it. */
    void dealloc();
}
