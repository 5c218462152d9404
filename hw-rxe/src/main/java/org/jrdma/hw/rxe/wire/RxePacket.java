package org.jrdma.hw.rxe.wire;

import io.netty.buffer.ByteBuf;

/**
 * A reusable, mutable view of one received rxe packet: the counterpart of {@code struct rxe_pkt_info}
 * plus the length checks of rxe_recv.c.
 *
 * <p>{@link #decode(ByteBuf)} validates the packet and records its opcode, BTH fields and the absolute
 * offsets of the headers, payload and ICRC. It never throws on bad input (it returns a
 * {@link RxeDecodeStatus}), never allocates, and never moves the buffer's indexes; it keeps a reference to
 * the buffer without retaining it, so the view is valid only while the caller holds the buffer. Keep one
 * instance per receiving thread and reuse it for every packet.
 *
 * <p>Extension-header accessors ({@link #rethVa()}, {@link #aethSyn()}, ...) read the buffer on demand at
 * the opcode's offset, like rxe's {@code reth_va(pkt)}; calling one the opcode does not carry is a
 * programming error ({@link IllegalStateException}). Check {@link #has(int)} first.
 *
 * <p>The ICRC is not checked here (it needs the IP and UDP headers): see {@link Icrc}.
 */
public final class RxePacket {
    private ByteBuf buf;
    private RxeDecodeStatus status = RxeDecodeStatus.MALFORMED_SHORT;
    private int bthOffset;
    private int length;
    private int opcodeValue;
    private RxeOpcode opcode;
    private int mask;
    private boolean se;
    private boolean mig;
    private int pad;
    private int tver;
    private int pkey;
    private boolean fecn;
    private boolean becn;
    private int qpn;
    private boolean ackReq;
    private int psn;
    private int payloadOffset;
    private int payloadLength;

    /**
     * Decodes the readable bytes of {@code udpPayload} (BTH first, ICRC last).
     */
    public RxeDecodeStatus decode(ByteBuf udpPayload) {
        return decode(udpPayload, udpPayload.readerIndex(), udpPayload.readableBytes());
    }

    /**
     * Decodes the {@code length} bytes at absolute {@code offset} of {@code b} (BTH first, ICRC last).
     */
    public RxeDecodeStatus decode(ByteBuf b, int offset, int length) {
        clear();
        this.buf = b;
        this.bthOffset = offset;
        this.length = length;
        if (length < Bth.BYTES) {
            return status = RxeDecodeStatus.MALFORMED_SHORT;
        }
        opcodeValue = Bth.opcode(b, offset);
        int flags = b.getUnsignedByte(offset + 1);
        se = (flags & Bth.SE_MASK) != 0;
        mig = (flags & Bth.MIG_MASK) != 0;
        pad = (flags & Bth.PAD_MASK) >>> 4;
        tver = flags & Bth.TVER_MASK;
        pkey = Bth.pkey(b, offset);
        int w1 = b.getInt(offset + 4);
        fecn = (w1 & Bth.FECN_MASK) != 0;
        becn = (w1 & Bth.BECN_MASK) != 0;
        qpn = w1 & Bth.QPN_MASK;
        int w2 = b.getInt(offset + 8);
        ackReq = (w2 & Bth.ACK_MASK) != 0;
        psn = w2 & Bth.PSN_MASK;

        RxeOpcode op = RxeOpcode.of(opcodeValue);
        if (op == null) {
            return status = RxeDecodeStatus.BAD_OPCODE;
        }
        opcode = op;
        mask = op.mask();
        if (length < op.length() + RxeWire.ICRC_BYTES) {
            return status = RxeDecodeStatus.MALFORMED_SHORT;
        }
        if (tver != RxeWire.BTH_TVER) {
            return status = RxeDecodeStatus.BAD_TVER;
        }
        int paddedPayload = length - op.length() - RxeWire.ICRC_BYTES;
        if (pad > paddedPayload) {
            return status = RxeDecodeStatus.BAD_PAD;
        }
        payloadOffset = offset + op.length();
        payloadLength = paddedPayload - pad;
        return status = RxeDecodeStatus.OK;
    }

    /** Forgets the last packet (drops the buffer reference). */
    public void clear() {
        buf = null;
        status = RxeDecodeStatus.MALFORMED_SHORT;
        bthOffset = length = opcodeValue = mask = pad = tver = pkey = qpn = psn = 0;
        payloadOffset = payloadLength = 0;
        opcode = null;
        se = mig = fecn = becn = ackReq = false;
    }

    public RxeDecodeStatus status() {
        return status;
    }

    public ByteBuf buf() {
        return buf;
    }

    /** The raw BTH opcode byte (also when {@link #opcode()} is null). */
    public int opcodeValue() {
        return opcodeValue;
    }

    /** The opcode, or null when the status is MALFORMED_SHORT before the BTH or BAD_OPCODE. */
    public RxeOpcode opcode() {
        return opcode;
    }

    /** {@link RxeMask} bits of the opcode (0 if unknown). */
    public int mask() {
        return mask;
    }

    /** True if every bit of {@code bits} is set in {@link #mask()}. */
    public boolean has(int bits) {
        return (mask & bits) == bits;
    }

    /** Absolute offset of the BTH (the start of the UDP payload). */
    public int bthOffset() {
        return bthOffset;
    }

    /** UDP payload length: headers, payload, pad and ICRC. */
    public int length() {
        return length;
    }

    /** Total length of BTH and extension headers. */
    public int headerLength() {
        return opcode == null ? 0 : opcode.length();
    }

    public boolean se() {
        return se;
    }

    public boolean mig() {
        return mig;
    }

    public int pad() {
        return pad;
    }

    public int tver() {
        return tver;
    }

    public int pkey() {
        return pkey;
    }

    public boolean fecn() {
        return fecn;
    }

    public boolean becn() {
        return becn;
    }

    /** BTH destination QP. */
    public int qpn() {
        return qpn;
    }

    public boolean ackReq() {
        return ackReq;
    }

    public int psn() {
        return psn;
    }

    /** Absolute offset of the payload. */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** Payload length without pad ({@code payload_size(pkt)} in rxe). */
    public int payloadLength() {
        return payloadLength;
    }

    /** Absolute offset of the 4-byte ICRC. */
    public int icrcOffset() {
        return bthOffset + length - RxeWire.ICRC_BYTES;
    }

    /** The ICRC as carried (little-endian on the wire), comparable with {@link Icrc} results. */
    public int icrc() {
        return buf.getIntLE(icrcOffset());
    }

    // ---- extension headers, read on demand (absolute offsets into buf) ----

    public int rethOffset() {
        return hdr(opcode == null ? -1 : opcode.rethOffset());
    }

    public long rethVa() {
        return Reth.va(buf, rethOffset());
    }

    public int rethRkey() {
        return Reth.rkey(buf, rethOffset());
    }

    /** Unsigned 32-bit DMA length. */
    public int rethLen() {
        return Reth.len(buf, rethOffset());
    }

    public int aethOffset() {
        return hdr(opcode == null ? -1 : opcode.aethOffset());
    }

    public int aethSyn() {
        return Aeth.syn(buf, aethOffset());
    }

    public int aethMsn() {
        return Aeth.msn(buf, aethOffset());
    }

    public int atmethOffset() {
        return hdr(opcode == null ? -1 : opcode.atmethOffset());
    }

    public long atmethVa() {
        return AtomicEth.va(buf, atmethOffset());
    }

    public int atmethRkey() {
        return AtomicEth.rkey(buf, atmethOffset());
    }

    public long atmethSwapAdd() {
        return AtomicEth.swapAdd(buf, atmethOffset());
    }

    public long atmethComp() {
        return AtomicEth.comp(buf, atmethOffset());
    }

    public int atmackOffset() {
        return hdr(opcode == null ? -1 : opcode.atmackOffset());
    }

    public long atmackOrig() {
        return AtomicAckEth.orig(buf, atmackOffset());
    }

    public int iethOffset() {
        return hdr(opcode == null ? -1 : opcode.iethOffset());
    }

    public int iethRkey() {
        return Ieth.rkey(buf, iethOffset());
    }

    public int immdtOffset() {
        return hdr(opcode == null ? -1 : opcode.immdtOffset());
    }

    public int immdt() {
        return ImmDt.imm(buf, immdtOffset());
    }

    public int dethOffset() {
        return hdr(opcode == null ? -1 : opcode.dethOffset());
    }

    public int dethQkey() {
        return Deth.qkey(buf, dethOffset());
    }

    public int dethSqp() {
        return Deth.sqp(buf, dethOffset());
    }

    private int hdr(int relative) {
        if (relative < 0 || status != RxeDecodeStatus.OK) {
            throw new IllegalStateException("no such header in " + (opcode == null ? "this packet" : opcode)
                    + " (status " + status + ")");
        }
        return bthOffset + relative;
    }

    @Override
    public String toString() {
        if (opcode == null) {
            return "RxePacket[" + status + " opcode=" + opcodeValue + "]";
        }
        return "RxePacket[" + status + " " + opcode + " qpn=0x" + Integer.toHexString(qpn) + " psn=" + psn
                + (ackReq ? " A" : "") + " payload=" + payloadLength + " pad=" + pad + "]";
    }
}
