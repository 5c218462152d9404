package org.jrdma.ib.core;

/** {@code enum ib_wc_flags}, as an int bit mask. */
public final class WcFlags {
    /** A 40-byte GRH precedes the data in the first receive buffer (UD). */
    public static final int GRH = 1;
    public static final int WITH_IMM = 1 << 1;
    public static final int WITH_INVALIDATE = 1 << 2;
    public static final int IP_CSUM_OK = 1 << 3;
    public static final int WITH_SMAC = 1 << 4;
    public static final int WITH_VLAN = 1 << 5;
    public static final int WITH_NETWORK_HDR_TYPE = 1 << 6;

    /**
     * {@code sizeof(struct ib_grh)}: the bytes at the start of a UD receive buffer that hold the GRH (RoCEv2: the
     * IPv6 header, or the IPv4 header after 20 zero bytes) whether or not the completion has {@link #GRH}.
     */
    public static final int GRH_BYTES = 40;

    private WcFlags() {
    }
}
