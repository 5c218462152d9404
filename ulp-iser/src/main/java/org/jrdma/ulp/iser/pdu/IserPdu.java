package org.jrdma.ulp.iser.pdu;

import io.netty.buffer.ByteBuf;

/**
 * One RDMA SEND of an iSER connection (RFC 7145 section 7.3): the iSER header, then one iSCSI PDU, which ends
 * where the SEND ends (Linux sends the data segment's pad bytes; a SEND without them is taken too).
 */
public record IserPdu(IserHeader iser, IscsiPdu pdu) {

    /** Decodes the whole readable part of {@code in}: one SEND's payload. */
    public static IserPdu decode(ByteBuf in, int maxDataSegment) throws IscsiProtocolException {
        IserHeader iser = IserHeader.decode(in);
        IscsiPdu pdu = IscsiPdu.decode(in, IscsiPdu.Padding.OPTIONAL, maxDataSegment);
        if (in.isReadable()) {
            throw IscsiProtocolException.framing(in.readableBytes() + " bytes after the data segment of "
                    + pdu.opcode() + " (DataSegmentLength " + pdu.data().length + ")");
        }
        return new IserPdu(iser, pdu);
    }

    public int wireLength() {
        return IserHeader.LENGTH + pdu.wireLength();
    }

    public void encode(ByteBuf out) {
        iser.encode(out);
        pdu.encode(out);
    }
}
