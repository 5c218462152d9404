package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * ACK Extended Transport Header, 4 bytes: syndrome (8 bits) | MSN (24 bits) ({@code struct rxe_aeth}),
 * and the syndrome decoding of IBA 9.7.5.2.
 *
 * <pre>
 * syndrome 0x00-0x1f  ACK,      low 5 bits = credit count (0x1f: {@link #ACK_UNLIMITED}, what rxe sends)
 * syndrome 0x20-0x3f  RNR NAK,  low 5 bits = RNR timer code (rxe sends its min_rnr_timer)
 * syndrome 0x60-0x7f  NAK,      low 5 bits = {@link NakCode}
 * anything else       reserved
 * </pre>
 */
public final class Aeth {
    /** {@code RXE_AETH_BYTES}. */
    public static final int BYTES = 4;

    public static final int SYN_MASK = 0xff000000;
    public static final int MSN_MASK = 0x00ffffff;

    /** {@code AETH_TYPE_MASK}: the top 3 bits of the syndrome. */
    public static final int TYPE_MASK = 0xe0;
    public static final int ACK = 0x00;
    public static final int RNR_NAK = 0x20;
    public static final int NAK = 0x60;
    /** {@code AETH_ACK_UNLIMITED}: credit count "invalid", i.e. no end-to-end flow control. */
    public static final int ACK_UNLIMITED = 0x1f;
    public static final int NAK_PSN_SEQ_ERROR = 0x60;
    public static final int NAK_INVALID_REQ = 0x61;
    public static final int NAK_REM_ACC_ERR = 0x62;
    public static final int NAK_REM_OP_ERR = 0x63;
    public static final int NAK_INV_RD_REQ = 0x64;

    /** What a syndrome says, from its top 3 bits. */
    public enum Type {
        ACK, RNR_NAK, NAK, RESERVED
    }

    /** The NAK codes (low 5 bits of a NAK syndrome). */
    public enum NakCode {
        PSN_SEQUENCE_ERROR, INVALID_REQUEST, REMOTE_ACCESS_ERROR, REMOTE_OPERATIONAL_ERROR, INVALID_RD_REQUEST,
        /** Codes 5..31. */
        RESERVED;

        private static final NakCode[] BY_CODE = values();

        /** The NAK code for the low 5 bits of a syndrome; {@link #RESERVED} for 5..31. */
        public static NakCode of(int code) {
            return code >= 0 && code < RESERVED.ordinal() ? BY_CODE[code] : RESERVED;
        }

        /** The 5-bit code; -1 for {@link #RESERVED}. */
        public int code() {
            return this == RESERVED ? -1 : ordinal();
        }
    }

    private Aeth() {
    }

    /** The 8-bit syndrome. */
    public static int syn(ByteBuf b, int off) {
        return b.getUnsignedByte(off);
    }

    /** The 24-bit MSN. */
    public static int msn(ByteBuf b, int off) {
        return b.getInt(off) & MSN_MASK;
    }

    public static void encode(ByteBuf b, int off, int syn, int msn) {
        b.setInt(off, (syn << 24) | (msn & MSN_MASK));
    }

    public static void setSyn(ByteBuf b, int off, int syn) {
        b.setByte(off, syn);
    }

    public static void setMsn(ByteBuf b, int off, int msn) {
        b.setMedium(off + 1, msn);
    }

    /** Classifies a syndrome. */
    public static Type type(int syn) {
        switch (syn & TYPE_MASK) {
            case ACK:
                return Type.ACK;
            case RNR_NAK:
                return Type.RNR_NAK;
            case NAK:
                return Type.NAK;
            default:
                return Type.RESERVED;
        }
    }

    /** Credit count of an ACK syndrome (0x1f: unlimited). */
    public static int credits(int syn) {
        return syn & 0x1f;
    }

    /** RNR timer code (IBA table 45, {@code IB_RNR_TIMER_*}) of an RNR NAK syndrome. */
    public static int rnrTimer(int syn) {
        return syn & 0x1f;
    }

    /** NAK code of a NAK syndrome. */
    public static NakCode nakCode(int syn) {
        return NakCode.of(syn & 0x1f);
    }

    /** The syndrome of an ACK with {@code credits} (rxe: always {@link #ACK_UNLIMITED}). */
    public static int ackSyndrome(int credits) {
        return ACK | (credits & 0x1f);
    }

    /** The syndrome of an RNR NAK with timer code {@code timer}. */
    public static int rnrNakSyndrome(int timer) {
        return RNR_NAK | (timer & 0x1f);
    }

    /** The syndrome of a NAK; {@code code} must not be {@link NakCode#RESERVED}. */
    public static int nakSyndrome(NakCode code) {
        if (code == NakCode.RESERVED) {
            throw new IllegalArgumentException("reserved NAK code");
        }
        return NAK | code.ordinal();
    }
}
