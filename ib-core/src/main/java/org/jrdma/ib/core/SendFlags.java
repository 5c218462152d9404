package org.jrdma.ib.core;

/** {@code enum ib_send_flags}, as an int bit mask. */
public final class SendFlags {
    /** Wait for earlier RDMA READs and atomics to complete before this WR starts. */
    public static final int FENCE = 1;
    /** Generate a completion (needed when the QP was created with {@link SignalType#REQ_WR}). */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited event bit: wakes a CQ armed with {@link CqNotify#SOLICITED}. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the data at post time; no lkey is checked. */
    public static final int INLINE = 1 << 3;
    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {
    }
}
