package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * One iSCSI PDU (RFC 7143 section 11.2): BHS, AHSs, data segment padded to 4 bytes. Linux pads over iSER too
 * (the captured SENDs carry the pad bytes, e.g. 477 bytes of login keys + 3), so encoding always pads; a SEND
 * delimits its PDU, so over iSER the decoder also takes one that ends without the pad ({@link Padding#OPTIONAL}),
 * while a TCP stream needs it to find the next PDU ({@link Padding#REQUIRED}). No digests: iSER never uses
 * them and this bundle negotiates HeaderDigest=None.
 */
public record IscsiPdu(IscsiHeader header, List<Ahs> ahs, byte[] data) {
    /** The largest DataSegmentLength a 24-bit field can carry, and RFC 7143's limit on MaxRecvDataSegmentLength. */
    public static final int MAX_DATA_SEGMENT = (1 << 24) - 1;

    /** Whether a received data segment must be followed by its padding. */
    public enum Padding {
        /** A byte stream (iSCSI/TCP): the pad bytes are there, the next PDU starts after them. */
        REQUIRED,
        /** A SEND (iSER): the message may end at the data segment or after its pad bytes. */
        OPTIONAL
    }

    /** TotalAHSLength is one byte of 4-byte words. */
    static final int MAX_AHS = 255 * 4;

    public IscsiPdu {
        ahs = List.copyOf(ahs);
        if (ahsLength(ahs) > MAX_AHS) {
            throw new IllegalArgumentException("AHSs over " + MAX_AHS + " bytes");
        }
        if (data.length > MAX_DATA_SEGMENT) {
            throw new IllegalArgumentException("data segment of " + data.length + " bytes");
        }
    }

    public IscsiPdu(IscsiHeader header, byte[] data) {
        this(header, List.of(), data);
    }

    public IscsiOpcode opcode() {
        return header.opcode();
    }

    /** The AHSs' bytes on the wire (a loop, not a stream: this runs several times per PDU on the I/O path). */
    private static int ahsLength(List<Ahs> ahs) {
        int n = 0;
        for (int i = 0; i < ahs.size(); i++) {
            n += ahs.get(i).wireLength();
        }
        return n;
    }

    /** {@code length} rounded up to 4. */
    static int padded(int length) {
        return length + 3 & ~3;
    }

    /**
     * Decodes one PDU at the reader index of {@code in}, reading no more than its readable bytes and no data
     * segment longer than {@code maxDataSegment} (the MaxRecvDataSegmentLength this side declared).
     */
    public static IscsiPdu decode(ByteBuf in, Padding padding, int maxDataSegment) throws IscsiProtocolException {
        if (in.readableBytes() < Bhs.LENGTH) {
            throw IscsiProtocolException.framing("PDU of " + in.readableBytes() + " bytes, shorter than the BHS");
        }
        byte[] raw = new byte[Bhs.LENGTH];
        in.readBytes(raw);
        Bhs bhs = Bhs.of(raw);
        IscsiHeader header = IscsiHeader.decode(bhs);
        List<Ahs> ahs = Ahs.decodeAll(in, bhs.totalAhsLength());
        int length = bhs.dataSegmentLength();
        if (length > maxDataSegment) {
            throw new IscsiProtocolException(RejectReason.PROTOCOL_ERROR,
                    "DataSegmentLength " + length + " over the " + maxDataSegment + " declared");
        }
        int wire = padded(length);
        if (padding == Padding.OPTIONAL && in.readableBytes() == length) {
            wire = length;
        }
        if (wire > in.readableBytes()) {
            throw IscsiProtocolException.framing("DataSegmentLength " + length + " past the end of the PDU ("
                    + in.readableBytes() + " bytes left)");
        }
        byte[] data = new byte[length];
        in.readBytes(data);
        in.skipBytes(wire - length);
        return new IscsiPdu(header, ahs, data);
    }

    /** The bytes a PDU takes on the wire, padding included. */
    public int wireLength() {
        return Bhs.LENGTH + ahsLength(ahs) + padded(data.length);
    }

    /** The BHS with the framing fields filled in. */
    public Bhs bhs() {
        Bhs bhs = Bhs.empty();
        header.encode(bhs);
        bhs.totalAhsLength(ahsLength(ahs) / 4);
        bhs.dataSegmentLength(data.length);
        return bhs;
    }

    public void encode(ByteBuf out) {
        out.writeBytes(bhs().toByteArray());
        for (Ahs a : ahs) {
            a.encode(out);
        }
        out.writeBytes(data);
        out.writeZero(padded(data.length) - data.length);
    }
}
