package org.jrdma.ulp.iser.initiator;

import java.util.Map;

/**
 * The sense data of a SCSI Response (RFC 7143 11.4.7: a 2-byte SenseLength, then SPC-4 sense bytes, fixed 0x70/0x71
 * or descriptor 0x72/0x73 format) and its words, as Linux's {@code scsi_print_sense} and sg3-utils print them.
 */
record ScsiSense(int senseKey, int asc, int ascq) {
    static final ScsiSense NONE = new ScsiSense(0, 0, 0);

    private static final String[] SENSE_KEYS = {
        "NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR", "ILLEGAL REQUEST",
        "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC", "COPY ABORTED", "ABORTED COMMAND",
        "EQUAL", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED"};

    /** SPC-4 Annex D, the codes a block target sends (key: ASC << 8 | ASCQ). */
    private static final Map<Integer, String> ADDITIONAL = Map.ofEntries(
            Map.entry(0x0000, "NO ADDITIONAL SENSE INFORMATION"),
            Map.entry(0x0400, "LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE"),
            Map.entry(0x0c00, "WRITE ERROR"),
            Map.entry(0x1100, "UNRECOVERED READ ERROR"),
            Map.entry(0x1a00, "PARAMETER LIST LENGTH ERROR"),
            Map.entry(0x1d00, "MISCOMPARE DURING VERIFY OPERATION"),
            Map.entry(0x2000, "INVALID COMMAND OPERATION CODE"),
            Map.entry(0x2100, "LOGICAL BLOCK ADDRESS OUT OF RANGE"),
            Map.entry(0x2400, "INVALID FIELD IN CDB"),
            Map.entry(0x2500, "LOGICAL UNIT NOT SUPPORTED"),
            Map.entry(0x2600, "INVALID FIELD IN PARAMETER LIST"),
            Map.entry(0x2700, "WRITE PROTECTED"),
            Map.entry(0x2900, "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED"),
            Map.entry(0x2a01, "MODE PARAMETERS CHANGED"),
            Map.entry(0x2c00, "COMMAND SEQUENCE ERROR"),
            Map.entry(0x3a00, "MEDIUM NOT PRESENT"),
            Map.entry(0x3f0e, "REPORTED LUNS DATA HAS CHANGED"),
            Map.entry(0x4700, "SCSI PARITY ERROR"),
            Map.entry(0x4b00, "DATA PHASE ERROR"),
            Map.entry(0x5503, "INSUFFICIENT RESOURCES"));

    private static final Map<Integer, String> STATUS = Map.of(
            0x00, "GOOD", 0x02, "CHECK CONDITION", 0x04, "CONDITION MET", 0x08, "BUSY",
            0x18, "RESERVATION CONFLICT", 0x28, "TASK SET FULL", 0x30, "ACA ACTIVE", 0x40, "TASK ABORTED");

    /** Parses the SCSI Response's data segment; NONE when it holds no (recognisable) sense. */
    static ScsiSense parse(byte[] dataSegment) {
        if (dataSegment.length < 2) {
            return NONE;
        }
        int length = Math.min((dataSegment[0] & 0xff) << 8 | dataSegment[1] & 0xff, dataSegment.length - 2);
        if (length < 1) {
            return NONE;
        }
        int code = dataSegment[2] & 0x7f;
        if ((code == 0x70 || code == 0x71) && length >= 14) {
            return new ScsiSense(dataSegment[2 + 2] & 0x0f, dataSegment[2 + 12] & 0xff, dataSegment[2 + 13] & 0xff);
        }
        if ((code == 0x72 || code == 0x73) && length >= 4) {
            return new ScsiSense(dataSegment[2 + 1] & 0x0f, dataSegment[2 + 2] & 0xff, dataSegment[2 + 3] & 0xff);
        }
        return NONE;
    }

    static String statusName(int status) {
        return STATUS.getOrDefault(status, String.format("status 0x%02x", status));
    }

    /** "ILLEGAL REQUEST: LOGICAL BLOCK ADDRESS OUT OF RANGE". */
    String describe() {
        String words = ADDITIONAL.get(asc << 8 | ascq);
        if (words == null) {
            words = String.format("ASC 0x%02x ASCQ 0x%02x", asc, ascq);
        }
        return SENSE_KEYS[senseKey] + ": " + words;
    }
}
