package org.jrdma.ib.core;

/** {@code struct ib_cq}. */
public interface CompletionQueue extends VerbsObject {
    /** Actual number of entries (at least what was asked). */
    int cqe();

    /**
     * {@code ib_poll_cq}: fills up to {@code wc.length} completions (every slot must be non-null,
     * and is reused) and returns how many. Never blocks.
     */
    int poll(WorkCompletion[] wc);

    /** Polls at most {@code max} entries into {@code wc} starting at index 0. */
    int poll(WorkCompletion[] wc, int max);

    /**
     * {@code ib_req_notify_cq}: arms the completion handler for the next (or next solicited)
     * completion. With {@code reportMissedEvents}, returns true if completions may already be
     * waiting, so the caller polls again instead of sleeping (IB_CQ_REPORT_MISSED_EVENTS).
     */
    boolean reqNotify(CqNotify type, boolean reportMissedEvents);

    void resize(int cqe);

    Object context();

    /** {@code ib_destroy_cq}: refused with EBUSY while a QP uses it. */
    void destroy();
}
