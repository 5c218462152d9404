package org.jrdma.ulp.ipoib;

/** RFC 2863 operational state, as {@code ip link} shows it ({@code state UP}). */
public enum OperState {
    /** The interface is gone (its port was removed). */
    NOTPRESENT,
    /** No carrier: the port is not ACTIVE or the broadcast group is not joined yet. */
    DOWN,
    /** Carrier: the broadcast group is joined and the UD QP is ready. */
    UP
}
