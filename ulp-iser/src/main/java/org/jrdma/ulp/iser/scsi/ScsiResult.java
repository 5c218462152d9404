package org.jrdma.ulp.iser.scsi;

/**
 * What a command ended with: the SAM status byte, sense data when the status is CHECK CONDITION (fixed format,
 * 18 bytes or more: response code 0x70, sense key, ASC, ASCQ), and how many data-in bytes the command produced
 * (the transport sends min(dataInLength, EDTL) and computes the residual from it).
 */
public record ScsiResult(int status, byte[] sense, int dataInLength) {
    public static final int GOOD = 0x00;
    public static final int CHECK_CONDITION = 0x02;
    public static final int BUSY = 0x08;
    public static final int RESERVATION_CONFLICT = 0x18;
    public static final int TASK_SET_FULL = 0x28;
    public static final int TASK_ABORTED = 0x40;

    public ScsiResult {
        sense = sense == null ? new byte[0] : sense.clone();
    }

    @Override
    public byte[] sense() {
        return sense.clone();
    }

    public static ScsiResult good(int dataInLength) {
        return new ScsiResult(GOOD, null, dataInLength);
    }
}
