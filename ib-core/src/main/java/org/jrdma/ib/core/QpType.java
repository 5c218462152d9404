package org.jrdma.ib.core;

/** {@code enum ib_qp_type}: the special QPs first, as in the kernel. */
public enum QpType {
    /** QP0, subnet management; IB link layer only. */
    SMI,
    /** QP1, general services (MADs, CM). */
    GSI,
    RC, UC, UD;

    public boolean isSpecial() {
        return this == SMI || this == GSI;
    }
}
