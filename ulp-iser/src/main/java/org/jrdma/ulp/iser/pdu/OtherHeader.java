package org.jrdma.ulp.iser.pdu;

import java.util.Arrays;

/**
 * A BHS of a known opcode this bundle carries but does not interpret (SNACK, Async Message: neither appears with
 * ERL 0 over iSER in the Linux captures): its 48 bytes, the framing fields (bytes 4..7) left to {@link IscsiPdu}.
 */
public record OtherHeader(IscsiOpcode opcode, byte[] bytes) implements IscsiHeader {
    static final int FRAMING = 4;

    public OtherHeader {
        if (bytes.length != Bhs.LENGTH) {
            throw new IllegalArgumentException("BHS of " + bytes.length + " bytes");
        }
        bytes = bytes.clone();
        Arrays.fill(bytes, FRAMING, FRAMING + 4, (byte) 0);
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Records compare arrays by identity: compare the bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof OtherHeader h && opcode == h.opcode && Arrays.equals(bytes, h.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return opcode + "[" + java.util.HexFormat.of().formatHex(bytes) + "]";
    }

    @Override
    public int itt() {
        int i = Bhs.ITT;
        return (bytes[i] & 0xff) << 24 | (bytes[i + 1] & 0xff) << 16 | (bytes[i + 2] & 0xff) << 8 | bytes[i + 3] & 0xff;
    }

    static OtherHeader decode(Bhs b) throws IscsiProtocolException {
        return new OtherHeader(IscsiOpcode.of(b.opcodeValue()), b.toByteArray());
    }

    @Override
    public void encode(Bhs b) {
        b.bytes(0, bytes);
    }
}
