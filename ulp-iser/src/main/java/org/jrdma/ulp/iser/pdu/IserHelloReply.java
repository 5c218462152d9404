package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;

/**
 * iSER HelloReply (RFC 7145 section 9.4), the target's answer to {@link IserHello}, 12 bytes: opcode 0x3 in the
 * high nibble of byte 0 and the Reject flag in bit 0x01, MaxVer and CurVer nibbles in byte 1, the target's
 * iSER-ORD in bytes 2..3, 8 reserved bytes.
 */
public record IserHelloReply(boolean reject, int maxVersion, int currentVersion, int ord) {
    static final int REJECT = 0x01;

    public static IserHelloReply decode(ByteBuf in) throws IscsiProtocolException {
        if (in.readableBytes() < IserHello.LENGTH) {
            throw IscsiProtocolException.framing("iSER HelloReply of " + in.readableBytes() + " bytes");
        }
        int first = in.readUnsignedByte();
        if (IserOpcode.ofFlags(first) != IserOpcode.HELLO_REPLY) {
            throw IscsiProtocolException.framing("not an iSER HelloReply");
        }
        int versions = in.readUnsignedByte();
        int ord = in.readUnsignedShort();
        in.skipBytes(IserHello.LENGTH - 4);
        return new IserHelloReply((first & REJECT) != 0, versions >>> 4, versions & 0xf, ord);
    }

    public void encode(ByteBuf out) {
        out.writeByte(IserOpcode.HELLO_REPLY.flagsBits() | (reject ? REJECT : 0));
        out.writeByte(maxVersion << 4 | currentVersion & 0xf);
        out.writeShort(ord);
        out.writeZero(IserHello.LENGTH - 4);
    }
}
