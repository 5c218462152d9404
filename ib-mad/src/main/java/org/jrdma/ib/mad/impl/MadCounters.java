package org.jrdma.ib.mad.impl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The per-port counters of the MAD layer (both special QPs together). */
final class MadCounters {
    /** MADs posted (every transmission, resends and generated replies included). */
    static final String SENT = "sent";
    /** MADs received (every successful receive completion, malformed ones included). */
    static final String RCVD = "rcvd";
    /** Resends of a request after a response timeout. */
    static final String RETRIES = "retries";
    /** Requests that ended in RESP_TIMEOUT_ERR. */
    static final String TIMEOUTS = "timeouts";
    /** Send completions in error (other than flushes at teardown). */
    static final String SEND_ERRORS = "send_errors";
    /** Receive completions in error (other than flushes at teardown). */
    static final String RECV_ERRORS = "recv_errors";
    /** Too short, base version not 1, or a class that does not belong on the QP. */
    static final String DROPPED_MALFORMED = "dropped_malformed";
    /** Requests no agent claims (and that are not Get/Set, which get a reply). */
    static final String DROPPED_UNCLAIMED = "dropped_unclaimed";
    /** Responses that match no outstanding request. */
    static final String DROPPED_UNMATCHED_RESP = "dropped_unmatched_resp";
    /** GetResp with status UNSUPPORTED_METHOD_ATTRIB sent for unclaimed Get/Set. */
    static final String UNSUPPORTED_REPLIES = "unsupported_replies";
    /** Sends that waited for a free send slot (send queue full). */
    static final String SEND_QUEUED = "send_queued";

    /** Directed-route SMPs the SMI rules discard (bad hop pointer / count, wrong port, non-permissive DR LID). */
    static final String DROPPED_SMI = "dropped_smi";
    /** SubnGet/SubnSet requests the SMA answered. */
    static final String SMA_REQUESTS = "sma_requests";
    /** SMA answers with an error status (unsupported attribute 0x000c, invalid value 0x001c). */
    static final String SMA_ERRORS = "sma_errors";
    /** SA requests answered, and those answered with an error status. */
    static final String SA_REQUESTS = "sa_requests";
    static final String SA_ERRORS = "sa_errors";
    /** GetTables answered BUSY: the requester (or all together) at the SA's bound of outstanding RMPP answers. */
    static final String SA_BUSY = "sa_busy";
    /** RMPP: segments sent and received, transfers reassembled, and aborted ones. */
    static final String RMPP_SEGS_SENT = "rmpp_segs_sent";
    static final String RMPP_SEGS_RCVD = "rmpp_segs_rcvd";
    static final String RMPP_REASSEMBLED = "rmpp_reassembled";
    static final String RMPP_ABORTS = "rmpp_aborts";
    /** RMPP ACK/STOP/ABORTs that match no transfer the layer sends (an agent's own segments): consumed. */
    static final String RMPP_CTL_CONSUMED = "rmpp_ctl_consumed";

    private final Map<String, AtomicLong> c = new LinkedHashMap<>();

    MadCounters() {
        for (String n : new String[] {SENT, RCVD, RETRIES, TIMEOUTS, SEND_ERRORS, RECV_ERRORS, DROPPED_MALFORMED,
                DROPPED_UNCLAIMED, DROPPED_UNMATCHED_RESP, UNSUPPORTED_REPLIES, SEND_QUEUED, DROPPED_SMI, SMA_REQUESTS,
                SMA_ERRORS, SA_REQUESTS, SA_ERRORS, SA_BUSY, RMPP_SEGS_SENT, RMPP_SEGS_RCVD, RMPP_REASSEMBLED, RMPP_ABORTS,
                RMPP_CTL_CONSUMED}) {
            c.put(n, new AtomicLong());
        }
    }

    void inc(String name) {
        c.get(name).incrementAndGet();
    }

    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        c.forEach((k, v) -> m.put(k, v.get()));
        return Collections.unmodifiableMap(m);
    }
}
