package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;

/**
 * The iSER header in front of every iSCSI control-type PDU (RFC 7145 section 9.2, Linux {@code struct iser_ctrl}),
 * 28 bytes: flags (opcode 0x1 in the high nibble, WSV 0x08, RSV 0x04), 3 reserved bytes, Write STag + Write Base
 * Offset (the initiator's buffer the target RDMA-READs write data from), Read STag + Read Base Offset (where the
 * target RDMA-WRITEs read data). Linux uses absolute VAs (ZBVA not supported) and advances the Write Base Offset
 * past the immediate data.
 */
public record IserHeader(boolean wsv, boolean rsv, int writeStag, long writeVa, int readStag, long readVa) {
    /** {@code sizeof(struct iser_ctrl)}. */
    public static final int LENGTH = 28;
    static final int WSV = 0x08;
    static final int RSV = 0x04;

    /** The header of a PDU without data transfer (login, text, NOP, logout, responses): flags 0x10, all zero. */
    public static final IserHeader CONTROL = new IserHeader(false, false, 0, 0, 0, 0);

    public int flags() {
        return IserOpcode.ISCSI_CTRL.flagsBits() | (wsv ? WSV : 0) | (rsv ? RSV : 0);
    }

    public static IserHeader decode(ByteBuf in) throws IscsiProtocolException {
        if (in.readableBytes() < LENGTH) {
            throw IscsiProtocolException.framing("iSER message of " + in.readableBytes() + " bytes, shorter than "
                    + LENGTH);
        }
        int flags = in.readUnsignedByte();
        IserOpcode op = IserOpcode.ofFlags(flags);
        if (op != IserOpcode.ISCSI_CTRL) {
            throw IscsiProtocolException.framing("iSER " + op + " where an iSCSI control PDU was expected");
        }
        in.skipBytes(3);
        return new IserHeader((flags & WSV) != 0, (flags & RSV) != 0, in.readInt(), in.readLong(), in.readInt(),
                in.readLong());
    }

    public void encode(ByteBuf out) {
        out.writeByte(flags());
        out.writeZero(3);
        out.writeInt(writeStag);
        out.writeLong(writeVa);
        out.writeInt(readStag);
        out.writeLong(readVa);
    }
}
