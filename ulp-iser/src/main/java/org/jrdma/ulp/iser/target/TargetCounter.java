package org.jrdma.ulp.iser.target;

/** What the target runtime counts (LIO's {@code iscsi_stat_*} and isert's error counters, in one list). */
public enum TargetCounter {
    /** SCSI commands handed to the LUNs. */
    COMMANDS,
    /** Data-in bytes pushed by RDMA WRITE (initiator READs). */
    READ_BYTES,
    /** Data-out bytes taken (immediate data + RDMA READ; initiator WRITEs). */
    WRITE_BYTES,
    /** Reject PDUs sent. */
    REJECTS,
    /** Non-immediate commands outside [ExpCmdSN, MaxCmdSN] or duplicates, dropped silently (RFC 7143 4.2.2.1). */
    OUT_OF_WINDOW,
    /** Received SENDs that did not decode. */
    MALFORMED,
    /** Logins that reached the full feature phase. */
    LOGINS_OK,
    /** Logins answered with a non-zero status. */
    LOGINS_FAILED,
    /** Task management requests answered. */
    TASK_MANAGEMENT,
    /** Commands ended without a response: aborted, or their connection went down. */
    ABORTED,
    /** Connections dropped because the initiator did not answer the target's NOP-In ping in time. */
    NOP_IN_TIMEOUTS,
    /** Handler failures (a bug, not bad input): the connection is dropped, other sessions go on. */
    INTERNAL_ERRORS,
    /** Sessions closed because a newer login with the same ISID and InitiatorName replaced them. */
    REINSTATEMENTS,
    /**
     * NOP-Outs with ITT 0xffffffff that answer no NOP-In of ours (TTT 0xffffffff or not the outstanding ping's):
     * nothing to answer, dropped (LIO ignores the first kind and fails the second with EINVAL).
     */
    UNMATCHED_NOP_OUT
}
