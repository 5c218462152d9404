package org.jrdma.ib.core;

/** {@code enum ib_srq_attr_mask}. */
public enum SrqAttrMask {
    /** Resize the SRQ. */
    MAX_WR,
    /** Arm the limit event. */
    LIMIT
}
