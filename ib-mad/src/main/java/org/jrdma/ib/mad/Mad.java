package org.jrdma.ib.mad;

/**
 * A management datagram: 256 bytes, the 24-byte common header ({@code struct ib_mad_hdr}, big-endian)
 * followed by 232 bytes of class data. Accessors read and write the header in place.
 */
public final class Mad {
    public static final int SIZE = 256;
    public static final int HDR_SIZE = 24;
    public static final int DATA_SIZE = SIZE - HDR_SIZE;
    public static final int BASE_VERSION = 1;

    /** Management classes ({@code IB_MGMT_CLASS_*}). */
    public static final int CLASS_SUBN_LID_ROUTED = 0x01;
    public static final int CLASS_SUBN_ADM = 0x03;
    public static final int CLASS_PERF_MGMT = 0x04;
    public static final int CLASS_BM = 0x05;
    public static final int CLASS_DEVICE_MGMT = 0x06;
    public static final int CLASS_CM = 0x07;
    public static final int CLASS_SUBN_DIRECTED_ROUTE = 0x81;

    /** Methods ({@code IB_MGMT_METHOD_*}); a response has {@link #METHOD_RESP} set. */
    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    public static final int METHOD_SEND = 0x03;
    public static final int METHOD_TRAP = 0x05;
    public static final int METHOD_REPORT = 0x06;
    public static final int METHOD_TRAP_REPRESS = 0x07;
    public static final int METHOD_GET_TABLE = 0x12;
    public static final int METHOD_DELETE = 0x15;
    public static final int METHOD_RESP = 0x80;
    public static final int METHOD_GET_RESP = 0x81;

    /** Status field values ({@code IB_MGMT_MAD_STATUS_*}). */
    public static final int STATUS_SUCCESS = 0x0000;
    public static final int STATUS_BUSY = 0x0001;
    public static final int STATUS_REDIRECT_REQD = 0x0002;
    public static final int STATUS_BAD_VERSION = 0x0004;
    public static final int STATUS_UNSUPPORTED_METHOD = 0x0008;
    public static final int STATUS_UNSUPPORTED_METHOD_ATTRIB = 0x000c;
    public static final int STATUS_INVALID_ATTRIB_VALUE = 0x001c;

    private final byte[] b;
    private final int length;

    /** A zeroed MAD. */
    public Mad() {
        this(new byte[SIZE]);
    }

    /** A view of {@code bytes} (at least 256; longer for an RMPP-reassembled MAD). */
    public Mad(byte[] bytes) {
        this(bytes, bytes.length);
    }

    /**
     * A view of {@code bytes} of which the first {@code length} count: an RMPP-reassembled MAD shorter
     * than 256 bytes (one segment, a short table) is kept in 256 bytes with its real length.
     */
    public Mad(byte[] bytes, int length) {
        if (bytes.length < SIZE) {
            throw new IllegalArgumentException("a MAD is at least " + SIZE + " bytes, not " + bytes.length);
        }
        if (length < HDR_SIZE || length > bytes.length) {
            throw new IllegalArgumentException("MAD length " + length + " of " + bytes.length + " bytes");
        }
        this.b = bytes;
        this.length = length;
    }

    public byte[] bytes() {
        return b;
    }

    /**
     * The length that counts: 256 for a MAD as it arrived, the header plus the payload for an
     * RMPP-reassembled one ({@code mad_recv_wc->mad_len}, {@code get_mad_len} of {@code mad_rmpp.c}).
     */
    public int length() {
        return length;
    }

    public int baseVersion() { return u8(0); }
    public Mad baseVersion(int v) { return u8(0, v); }
    public int mgmtClass() { return u8(1); }
    public Mad mgmtClass(int v) { return u8(1, v); }
    public int classVersion() { return u8(2); }
    public Mad classVersion(int v) { return u8(2, v); }
    public int method() { return u8(3); }
    public Mad method(int v) { return u8(3, v); }
    public int status() { return u16(4); }
    public Mad status(int v) { return u16(4, v); }
    public int classSpecific() { return u16(6); }
    public Mad classSpecific(int v) { return u16(6, v); }
    public long tid() { return u64(8); }
    public Mad tid(long v) { return u64(8, v); }
    public int attrId() { return u16(16); }
    public Mad attrId(int v) { return u16(16, v); }
    public long attrMod() { return u32(20); }
    public Mad attrMod(long v) { return u32(20, v); }

    /** Whether the method is a response (GetResp, ... : bit 7), which is matched to a request by TID. */
    public boolean isResponse() {
        return (method() & METHOD_RESP) != 0 || method() == METHOD_TRAP_REPRESS;
    }

    // big-endian field access at absolute offsets (header and class data alike)
    public int u8(int off) {
        return b[off] & 0xff;
    }

    public Mad u8(int off, int v) {
        b[off] = (byte) v;
        return this;
    }

    public int u16(int off) {
        return (b[off] & 0xff) << 8 | b[off + 1] & 0xff;
    }

    public Mad u16(int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
        return this;
    }

    public long u32(int off) {
        return ((long) u16(off) << 16 | u16(off + 2)) & 0xffffffffL;
    }

    public Mad u32(int off, long v) {
        u16(off, (int) (v >>> 16));
        return u16(off + 2, (int) v);
    }

    public long u64(int off) {
        return u32(off) << 32 | u32(off + 4);
    }

    public Mad u64(int off, long v) {
        u32(off, v >>> 32);
        return u32(off + 4, v);
    }

    @Override
    public String toString() {
        return String.format("MAD class 0x%02x v%d method 0x%02x status 0x%04x tid 0x%016x attr 0x%04x mod 0x%08x",
                mgmtClass(), classVersion(), method(), status(), tid(), attrId(), attrMod());
    }
}
