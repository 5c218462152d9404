package org.jrdma.hw.rxe;

/** The port counters of rxe_hw_counters.c, under the names {@code rdma statistic} shows. */
public enum RxeCounter {
    SENT_PKTS("sent_pkts"),
    RCVD_PKTS("rcvd_pkts"),
    DUPLICATE_REQUEST("duplicate_request"),
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    RCVD_RNR_ERR("rcvd_rnr_err"),
    SEND_RNR_ERR("send_rnr_err"),
    RCVD_SEQ_ERR("rcvd_seq_err"),
    ACK_DEFERRED("ack_deferred"),
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    RNR_NAK_RETRY_ERR("rnr_nak_retry_err"),
    COMPLETER_RETRY_ERR("completer_retry_err"),
    SEND_ERR("send_err"),
    LINK_DOWNED("link_downed"),
    RDMA_SENDS("rdma_sends"),
    RDMA_RECVS("rdma_recvs"),
    /** Not an rxe counter: received packets dropped by the header, key or ICRC checks. */
    RCVD_DROPPED("rcvd_dropped"),
    /** Not an rxe counter: received packets whose ICRC did not match (also counted in rcvd_dropped). */
    RCVD_ICRC_ERR("rcvd_icrc_err"),
    /**
     * Not an rxe counter: received packets dropped because their QP already had {@code PacketQueue.LIMIT} waiting
     * (a flood to a live QP; also counted in rcvd_dropped). rxe's skb queues have no bound but the socket's.
     */
    RCVD_QP_QUEUE_FULL("rcvd_qp_queue_full"),
    /** Not an rxe counter: UD and UC messages dropped for want of a posted receive (rxe drops them silently). */
    RCVD_NO_RWQE("rcvd_no_rwqe");

    private final String label;

    RxeCounter(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
