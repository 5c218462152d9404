package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * One Additional Header Segment (RFC 7143 section 11.2.2): AHSLength (2 bytes, the length of the AHS-specific
 * part, which starts at byte 3), AHSType, the specific bytes, padded to 4. Type 1 = Extended CDB (CDB bytes 16..),
 * type 2 = Bidirectional Read Expected Data Transfer Length.
 */
public record Ahs(int type, byte[] specific) {
    public static final int EXTENDED_CDB = 1;
    public static final int BIDI_READ_EDTL = 2;
    static final int HEADER = 3;

    /** Bytes on the wire, padding included. */
    public int wireLength() {
        return IscsiPdu.padded(HEADER + specific.length);
    }

    /** Decodes the AHSs of {@code words * 4} bytes at the reader index of {@code in}. */
    static List<Ahs> decodeAll(ByteBuf in, int words) throws IscsiProtocolException {
        int end = in.readerIndex() + words * 4;
        if (end > in.writerIndex()) {
            throw IscsiProtocolException.framing("TotalAHSLength " + words + " words past the end of the PDU");
        }
        List<Ahs> all = new ArrayList<>();
        while (in.readerIndex() < end) {
            if (end - in.readerIndex() < 4) {
                throw IscsiProtocolException.field("AHS header cut at the end of TotalAHSLength");
            }
            int length = in.readUnsignedShort();
            int type = in.readUnsignedByte();
            int wire = IscsiPdu.padded(HEADER + length);
            if (length == 0 || in.readerIndex() - HEADER + wire > end) {
                throw IscsiProtocolException.field("AHSLength " + length + " does not fit TotalAHSLength");
            }
            byte[] specific = new byte[length];
            in.readBytes(specific);
            in.skipBytes(wire - HEADER - length);
            all.add(new Ahs(type, specific));
        }
        return all;
    }

    void encode(ByteBuf out) {
        out.writeShort(specific.length);
        out.writeByte(type);
        out.writeBytes(specific);
        out.writeZero(wireLength() - HEADER - specific.length);
    }
}
