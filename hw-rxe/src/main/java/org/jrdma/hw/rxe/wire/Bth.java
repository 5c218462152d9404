package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * Base Transport Header, 12 bytes, at an absolute offset in a {@link ByteBuf} ({@code struct rxe_bth} and
 * the {@code __bth_*} accessors of rxe_hdr.h).
 *
 * <pre>
 * byte 0      opcode
 * byte 1      SE 0x80 | MigReq 0x40 | PadCnt 0x30 | TVer 0x0f
 * bytes 2-3   P_Key
 * bytes 4-7   FECN bit 31 | BECN bit 30 | resv6a 0x3f000000 | DestQP 24 bits   (byte 4 is IBA "resv8a")
 * bytes 8-11  AckReq bit 31 | resv7 0x7f000000 | PSN 24 bits
 * </pre>
 *
 * Getters and setters use absolute indexes: no index moves, no allocation.
 */
public final class Bth {
    /** {@code RXE_BTH_BYTES}. */
    public static final int BYTES = 12;

    public static final int SE_MASK = 0x80;
    public static final int MIG_MASK = 0x40;
    public static final int PAD_MASK = 0x30;
    public static final int TVER_MASK = 0x0f;
    public static final int FECN_MASK = 0x80000000;
    public static final int BECN_MASK = 0x40000000;
    public static final int RESV6A_MASK = 0x3f000000;
    public static final int QPN_MASK = 0x00ffffff;
    public static final int ACK_MASK = 0x80000000;
    public static final int RESV7_MASK = 0x7f000000;
    public static final int PSN_MASK = 0x00ffffff;

    private Bth() {
    }

    public static int opcode(ByteBuf b, int off) {
        return b.getUnsignedByte(off);
    }

    public static boolean se(ByteBuf b, int off) {
        return (b.getByte(off + 1) & SE_MASK) != 0;
    }

    /** MigReq. */
    public static boolean mig(ByteBuf b, int off) {
        return (b.getByte(off + 1) & MIG_MASK) != 0;
    }

    public static int pad(ByteBuf b, int off) {
        return (b.getByte(off + 1) & PAD_MASK) >>> 4;
    }

    public static int tver(ByteBuf b, int off) {
        return b.getByte(off + 1) & TVER_MASK;
    }

    public static int pkey(ByteBuf b, int off) {
        return b.getUnsignedShort(off + 2);
    }

    public static boolean fecn(ByteBuf b, int off) {
        return (b.getInt(off + 4) & FECN_MASK) != 0;
    }

    public static boolean becn(ByteBuf b, int off) {
        return (b.getInt(off + 4) & BECN_MASK) != 0;
    }

    /** The 6 reserved bits after FECN/BECN, right-aligned. */
    public static int resv6a(ByteBuf b, int off) {
        return (b.getInt(off + 4) & RESV6A_MASK) >>> 24;
    }

    /** Destination QP number, 24 bits. */
    public static int qpn(ByteBuf b, int off) {
        return b.getInt(off + 4) & QPN_MASK;
    }

    /** AckReq. */
    public static boolean ackReq(ByteBuf b, int off) {
        return (b.getInt(off + 8) & ACK_MASK) != 0;
    }

    /** The 7 reserved bits after AckReq, right-aligned. */
    public static int resv7(ByteBuf b, int off) {
        return (b.getInt(off + 8) & RESV7_MASK) >>> 24;
    }

    /** PSN, 24 bits. */
    public static int psn(ByteBuf b, int off) {
        return b.getInt(off + 8) & PSN_MASK;
    }

    /**
     * Writes a whole BTH the way rxe's {@code bth_init()} does: TVer 0, FECN/BECN and reserved bits 0.
     */
    public static void encode(ByteBuf b, int off, int opcode, boolean se, boolean mig, int pad, int pkey,
            int qpn, boolean ackReq, int psn) {
        int flags = (pad << 4) & PAD_MASK;
        if (se) {
            flags |= SE_MASK;
        }
        if (mig) {
            flags |= MIG_MASK;
        }
        b.setByte(off, opcode);
        b.setByte(off + 1, flags);
        b.setShort(off + 2, pkey);
        b.setInt(off + 4, qpn & QPN_MASK);
        b.setInt(off + 8, (ackReq ? ACK_MASK : 0) | (psn & PSN_MASK));
    }

    public static void setOpcode(ByteBuf b, int off, int opcode) {
        b.setByte(off, opcode);
    }

    public static void setSe(ByteBuf b, int off, boolean se) {
        setBits8(b, off + 1, SE_MASK, se ? SE_MASK : 0);
    }

    public static void setMig(ByteBuf b, int off, boolean mig) {
        setBits8(b, off + 1, MIG_MASK, mig ? MIG_MASK : 0);
    }

    public static void setPad(ByteBuf b, int off, int pad) {
        setBits8(b, off + 1, PAD_MASK, pad << 4);
    }

    public static void setTver(ByteBuf b, int off, int tver) {
        setBits8(b, off + 1, TVER_MASK, tver);
    }

    public static void setPkey(ByteBuf b, int off, int pkey) {
        b.setShort(off + 2, pkey);
    }

    public static void setFecn(ByteBuf b, int off, boolean fecn) {
        setBits32(b, off + 4, FECN_MASK, fecn ? FECN_MASK : 0);
    }

    public static void setBecn(ByteBuf b, int off, boolean becn) {
        setBits32(b, off + 4, BECN_MASK, becn ? BECN_MASK : 0);
    }

    public static void setResv6a(ByteBuf b, int off, int resv6a) {
        setBits32(b, off + 4, RESV6A_MASK, resv6a << 24);
    }

    public static void setQpn(ByteBuf b, int off, int qpn) {
        setBits32(b, off + 4, QPN_MASK, qpn);
    }

    public static void setAckReq(ByteBuf b, int off, boolean ackReq) {
        setBits32(b, off + 8, ACK_MASK, ackReq ? ACK_MASK : 0);
    }

    public static void setResv7(ByteBuf b, int off, int resv7) {
        setBits32(b, off + 8, RESV7_MASK, resv7 << 24);
    }

    public static void setPsn(ByteBuf b, int off, int psn) {
        setBits32(b, off + 8, PSN_MASK, psn);
    }

    private static void setBits8(ByteBuf b, int index, int mask, int value) {
        b.setByte(index, (b.getByte(index) & ~mask) | (value & mask));
    }

    private static void setBits32(ByteBuf b, int index, int mask, int value) {
        b.setInt(index, (b.getInt(index) & ~mask) | (value & mask));
    }
}
