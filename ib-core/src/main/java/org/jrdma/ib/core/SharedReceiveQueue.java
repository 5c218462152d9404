package org.jrdma.ib.core;

import java.util.Set;

/** {@code struct ib_srq}. */
public interface SharedReceiveQueue extends VerbsObject {
    ProtectionDomain pd();

    /** {@code ib_post_srq_recv}. */
    void postRecv(RecvWr wr);

    void modify(SrqAttr attr, Set<SrqAttrMask> mask);

    SrqAttr query();

    Object context();

    /** Refused with EBUSY while a QP uses it. */
    void destroy();
}
