package org.jrdma.ulp.iser.pdu;

/** Task Management functions (RFC 7143 section 11.5.1, Linux {@code ISCSI_TM_FUNC_*}), values 1..8. */
public enum TmfFunction {
    ABORT_TASK, ABORT_TASK_SET, CLEAR_ACA, CLEAR_TASK_SET, LOGICAL_UNIT_RESET, TARGET_WARM_RESET,
    TARGET_COLD_RESET, TASK_REASSIGN;

    public int value() {
        return ordinal() + 1;
    }

    static TmfFunction of(int value) throws IscsiProtocolException {
        if (value < 1 || value > values().length) {
            throw IscsiProtocolException.field("unknown task management function " + value);
        }
        return values()[value - 1];
    }
}
