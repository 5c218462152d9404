package org.jrdma.ulp.iser.scsi;

/**
 * The LUNs one initiator sees through one target portal group (LIO: the TPG's LUNs, through the initiator's
 * mapped LUNs or demo mode): executes a command on the LUN it names, including REPORT LUNS, and answers a LUN
 * that does not exist as SPC-4 says (INQUIRY: peripheral qualifier 011b; other commands: CHECK CONDITION,
 * ILLEGAL REQUEST, LOGICAL UNIT NOT SUPPORTED).
 *
 * <p>Thread-safe: commands of many sessions run concurrently. Never throws for bad input: every error becomes
 * a {@link ScsiResult} with sense data (an I/O error of the backstore: MEDIUM ERROR / UNRECOVERED READ ERROR or
 * WRITE ERROR).
 */
public interface ScsiExecutor {
    ScsiResult execute(ScsiTask task);

    /** LUN RESET: aborts nothing (commands run synchronously) but clears unit attentions and reservations. */
    default void lunReset(long lun) {
    }

    /** Whether a command to {@code lun} may wait on I/O (see {@link Backstore#mayBlock()}); unknown: yes. */
    default boolean mayBlock(long lun) {
        return true;
    }
}
