package org.jrdma.ulp.iser.pdu;

import java.util.Arrays;

/**
 * The 48-byte Basic Header Segment (RFC 7143 section 11.2.1, {@code struct iscsi_hdr}) as big-endian fields at
 * byte offsets. Common to every opcode: byte 0 = I bit 0x40 and the opcode, byte 1 bit 0x80 = F (most opcodes),
 * TotalAHSLength at 4, DataSegmentLength at 5..7, LUN or opcode-specific at 8..15, ITT at 16; the rest is
 * opcode-specific. Fixed size, so field accessors never run out of bounds.
 */
public final class Bhs {
    /** {@code sizeof(struct iscsi_hdr)}. */
    public static final int LENGTH = 48;
    static final int IMMEDIATE = 0x40;
    static final int FINAL = 0x80;
    static final int OPCODE_MASK = 0x3f;
    static final int ITT = 16;
    /** Offsets of the 32-bit words at 20..44 that many opcodes share (TTT, CmdSN/StatSN, ExpStatSN/ExpCmdSN, ...). */
    static final int W20 = 20;
    static final int W24 = 24;
    static final int W28 = 28;
    static final int W32 = 32;
    static final int W36 = 36;
    static final int W40 = 40;
    static final int W44 = 44;

    private final byte[] b;

    private Bhs(byte[] b) {
        this.b = b;
    }

    /** An all-zero header to encode into. */
    public static Bhs empty() {
        return new Bhs(new byte[LENGTH]);
    }

    /** A header over a copy of {@code bytes}, which must be 48 long. */
    public static Bhs of(byte[] bytes) throws IscsiProtocolException {
        if (bytes.length != LENGTH) {
            throw IscsiProtocolException.framing("BHS of " + bytes.length + " bytes, not " + LENGTH);
        }
        return new Bhs(bytes.clone());
    }

    public byte[] toByteArray() {
        return b.clone();
    }

    public int opcodeValue() {
        return b[0] & OPCODE_MASK;
    }

    public boolean immediate() {
        return (b[0] & IMMEDIATE) != 0;
    }

    public int flags() {
        return b[1] & 0xff;
    }

    public boolean isFinal() {
        return (b[1] & FINAL) != 0;
    }

    public int totalAhsLength() {
        return b[4] & 0xff;
    }

    public int dataSegmentLength() {
        return u24(5);
    }

    public int itt() {
        return u32(ITT);
    }

    void opcode(IscsiOpcode op, boolean immediate) {
        b[0] = (byte) (op.value() | (immediate ? IMMEDIATE : 0));
    }

    void flags(int flags) {
        b[1] = (byte) flags;
    }

    void totalAhsLength(int words) {
        b[4] = (byte) words;
    }

    void dataSegmentLength(int length) {
        u24(5, length);
    }

    void itt(int itt) {
        u32(ITT, itt);
    }

    int u8(int off) {
        return b[off] & 0xff;
    }

    void u8(int off, int v) {
        b[off] = (byte) v;
    }

    int u16(int off) {
        return (b[off] & 0xff) << 8 | b[off + 1] & 0xff;
    }

    void u16(int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    int u24(int off) {
        return (b[off] & 0xff) << 16 | u16(off + 1);
    }

    void u24(int off, int v) {
        b[off] = (byte) (v >>> 16);
        u16(off + 1, v);
    }

    int u32(int off) {
        return u16(off) << 16 | u16(off + 2);
    }

    void u32(int off, int v) {
        u16(off, v >>> 16);
        u16(off + 2, v);
    }

    long u48(int off) {
        return (long) u16(off) << 32 | u32(off + 2) & 0xffffffffL;
    }

    void u48(int off, long v) {
        u16(off, (int) (v >>> 32));
        u32(off + 2, (int) v);
    }

    long u64(int off) {
        return (long) u32(off) << 32 | u32(off + 4) & 0xffffffffL;
    }

    void u64(int off, long v) {
        u32(off, (int) (v >>> 32));
        u32(off + 4, (int) v);
    }

    byte[] bytes(int off, int len) {
        return Arrays.copyOfRange(b, off, off + len);
    }

    void bytes(int off, byte[] v) {
        System.arraycopy(v, 0, b, off, v.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bhs other && Arrays.equals(b, other.b);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(b);
    }
}
