package org.jrdma.ulp.iser.conn;

/**
 * {@code struct iser_cm_hdr}: the 4 bytes iSER puts in the RDMA CM private data (RFC 7145 section 9.2 has the iSER
 * Hello for iWARP; Linux over IB and RoCE uses this instead). Byte 0 = flags, bytes 1..3 reserved (zero). Linux
 * ib_iser sends 0x80 in the REQ (ZBVA not supported: absolute VAs; remote invalidation accepted as it always
 * registers per task), isert answers 0x80 in the REP, plus 0x40 when it will not use SEND_WITH_INV.
 */
public record IserCmHeader(int flags) {
    /** {@code ISER_ZBVA_NOT_SUP}: the initiator advertises absolute virtual addresses, not zero-based ones. */
    public static final int ZBVA_NOT_SUP = 0x80;
    /** {@code ISER_SEND_W_INV_NOT_SUP}: the peer must not send SEND_WITH_INV (REQ) / will not (REP). */
    public static final int SEND_W_INV_NOT_SUP = 0x40;
    public static final int LENGTH = 4;

    public IserCmHeader {
        if ((flags & ~0xff) != 0) {
            throw new IllegalArgumentException("iser_cm_hdr flags 0x" + Integer.toHexString(flags));
        }
    }

    public static IserCmHeader of(boolean sendWithInvalidate) {
        return new IserCmHeader(ZBVA_NOT_SUP | (sendWithInvalidate ? 0 : SEND_W_INV_NOT_SUP));
    }

    /**
     * The header at the start of a CM event's private data (the RDMA CM header already cut). No private data
     * (a non-iSER peer) reads as flags 0, as isert leaves remote invalidation off then ({@link #present}).
     */
    public static IserCmHeader decode(byte[] privateData) {
        return new IserCmHeader(privateData == null || privateData.length == 0 ? 0 : privateData[0] & 0xff);
    }

    /** Whether {@code privateData} holds a header at all (isert uses remote invalidation only if it does). */
    public static boolean present(byte[] privateData) {
        return privateData != null && privateData.length >= 1;
    }

    public byte[] encode() {
        return new byte[] {(byte) flags, 0, 0, 0};
    }

    public boolean zbvaNotSupported() {
        return (flags & ZBVA_NOT_SUP) != 0;
    }

    public boolean sendWithInvalidateNotSupported() {
        return (flags & SEND_W_INV_NOT_SUP) != 0;
    }

    @Override
    public String toString() {
        return "iser_cm_hdr{flags=0x" + Integer.toHexString(flags) + (zbvaNotSupported() ? " ZBVA_NOT_SUP" : "")
                + (sendWithInvalidateNotSupported() ? " SEND_W_INV_NOT_SUP" : "") + "}";
    }
}
