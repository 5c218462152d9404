package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;

/**
 * iSER Hello (RFC 7145 section 9.3), the initiator's first message on iWARP, 12 bytes: opcode 0x2 in the high
 * nibble of byte 0, MaxVer and MinVer nibbles in byte 1, the initiator's iSER-IRD (RDMA READs it can take in)
 * in bytes 2..3, 8 reserved bytes. Linux does not send it over InfiniBand or RoCE (the CM private data carries
 * {@code struct iser_cm_hdr} instead), so no capture holds one.
 */
public record IserHello(int maxVersion, int minVersion, int ird) {
    public static final int LENGTH = 12;
    /** The iSER version of RFC 7145: 10 (RFC 5046 was 1); Wireshark's iser dissector takes only 10 in both nibbles. */
    public static final int VERSION = 10;

    public static IserHello decode(ByteBuf in) throws IscsiProtocolException {
        if (in.readableBytes() < LENGTH) {
            throw IscsiProtocolException.framing("iSER Hello of " + in.readableBytes() + " bytes");
        }
        if (IserOpcode.ofFlags(in.getUnsignedByte(in.readerIndex())) != IserOpcode.HELLO) {
            throw IscsiProtocolException.framing("not an iSER Hello");
        }
        in.skipBytes(1);
        int versions = in.readUnsignedByte();
        int ird = in.readUnsignedShort();
        in.skipBytes(LENGTH - 4);
        return new IserHello(versions >>> 4, versions & 0xf, ird);
    }

    public void encode(ByteBuf out) {
        out.writeByte(IserOpcode.HELLO.flagsBits());
        out.writeByte(maxVersion << 4 | minVersion & 0xf);
        out.writeShort(ird);
        out.writeZero(LENGTH - 4);
    }
}
