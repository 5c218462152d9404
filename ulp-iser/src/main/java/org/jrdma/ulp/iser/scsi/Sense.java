package org.jrdma.ulp.iser.scsi;

/**
 * The check conditions the target core reports (Linux {@code sense_reason_t} / {@code sense_detail_table} in
 * target_core_transport.c), as sense key, ASC and ASCQ, and their fixed-format sense data (SPC-4 4.5.3).
 */
public enum Sense {
    NO_SENSE(0x00, 0x00, 0x00),
    UNRECOVERED_READ_ERROR(0x03, 0x11, 0x00),
    WRITE_ERROR(0x03, 0x0c, 0x00),
    /** A fault of the core itself (LIO: LOGICAL UNIT COMMUNICATION FAILURE is its catch-all). */
    INTERNAL_TARGET_FAILURE(0x04, 0x44, 0x00),
    INVALID_COMMAND_OPERATION_CODE(0x05, 0x20, 0x00),
    LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE(0x05, 0x21, 0x00),
    INVALID_FIELD_IN_CDB(0x05, 0x24, 0x00),
    LOGICAL_UNIT_NOT_SUPPORTED(0x05, 0x25, 0x00),
    INVALID_FIELD_IN_PARAMETER_LIST(0x05, 0x26, 0x00),
    PARAMETER_LIST_LENGTH_ERROR(0x05, 0x1a, 0x00),
    /** LIO's answer to a WRITE whose data-out size differs from the CDB's transfer length. */
    INVALID_FIELD_IN_COMMAND_IU(0x05, 0x0e, 0x03),
    SAVING_PARAMETERS_NOT_SUPPORTED(0x05, 0x39, 0x00),
    WRITE_PROTECTED(0x07, 0x27, 0x00);

    /** Fixed format, current error. */
    public static final int RESPONSE_CODE_FIXED = 0x70;
    /** 18 bytes: additional sense length 10. */
    public static final int FIXED_LENGTH = 18;

    private final int key;
    private final int asc;
    private final int ascq;

    Sense(int key, int asc, int ascq) {
        this.key = key;
        this.asc = asc;
        this.ascq = ascq;
    }

    public int key() {
        return key;
    }

    public int asc() {
        return asc;
    }

    public int ascq() {
        return ascq;
    }

    /** Fixed-format sense data without sense-key specific information. */
    public byte[] fixed() {
        byte[] b = new byte[FIXED_LENGTH];
        b[0] = (byte) RESPONSE_CODE_FIXED;
        b[2] = (byte) key;
        b[7] = (byte) (FIXED_LENGTH - 8);
        b[12] = (byte) asc;
        b[13] = (byte) ascq;
        return b;
    }

    /**
     * Fixed-format sense data with the field pointer of an ILLEGAL REQUEST (SPC-4 4.5.2.4.2): SKSV, C/D (the
     * field is in the CDB rather than the parameter list), BPV and bit pointer when {@code bit >= 0}.
     */
    public byte[] fixed(boolean inCdb, int fieldByte, int bit) {
        byte[] b = fixed();
        b[15] = (byte) (0x80 | (inCdb ? 0x40 : 0) | (bit >= 0 ? 0x08 | (bit & 7) : 0));
        b[16] = (byte) (fieldByte >>> 8);
        b[17] = (byte) fieldByte;
        return b;
    }
}
