package org.jrdma.ulp.iser.pdu;

/**
 * The iSER opcode in the high nibble of the first byte of every iSER message (RFC 7145 section 9.2, Linux
 * {@code ISCSI_CTRL}/{@code ISER_HELLO}/{@code ISER_HELLORPLY}).
 */
public enum IserOpcode {
    /** An iSCSI control-type PDU follows the 28-byte header. */
    ISCSI_CTRL(0x1),
    /** iSER Hello (iWARP only: over InfiniBand and RoCE the CM private data replaces it). */
    HELLO(0x2),
    HELLO_REPLY(0x3);

    private final int value;

    IserOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The high nibble of a message's first byte. */
    int flagsBits() {
        return value << 4;
    }

    public static IserOpcode ofFlags(int firstByte) throws IscsiProtocolException {
        int v = (firstByte & 0xff) >>> 4;
        for (IserOpcode op : values()) {
            if (op.value == v) {
                return op;
            }
        }
        throw IscsiProtocolException.framing("unknown iSER opcode 0x" + Integer.toHexString(v));
    }
}
