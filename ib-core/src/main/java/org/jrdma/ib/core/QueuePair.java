package org.jrdma.ib.core;

/** {@code struct ib_qp}. */
public interface QueuePair extends VerbsObject {
    int qpNum();

    QpType qpType();

    ProtectionDomain pd();

    CompletionQueue sendCq();

    CompletionQueue recvCq();

    /** The SRQ, or null. */
    SharedReceiveQueue srq();

    /** The state ib-core last saw (modify, or a state change the driver reported). */
    QpState state();

    /** The capabilities granted at create time (the driver may round up). */
    QpCap cap();

    /**
     * {@code ib_modify_qp}: the attributes {@code attr} carries ({@link QpAttr#mask()}) are checked
     * against the {@code ib_modify_qp_is_ok} table and the device caps, then applied.
     */
    void modify(QpAttr attr);

    /** {@code ib_query_qp}: every attribute the driver knows, with its mask. */
    QpAttr query();

    /** {@code ib_post_send}: posts the chain starting at {@code wr}; {@link PostException} names the bad one. */
    void postSend(SendWr wr);

    /** {@code ib_post_recv}. */
    void postRecv(RecvWr wr);

    /** {@code IB_MULTICAST_QPN}: the destination QPN of a UD send to a multicast group. */
    int MULTICAST_QPN = 0xffffff;

    /** {@code ib_attach_mcast} (UD only). */
    void attachMcast(Gid gid, int lid);

    void detachMcast(Gid gid, int lid);

    Object context();

    /** {@code ib_destroy_qp}: outstanding work requests are flushed first. */
    void destroy();
}
