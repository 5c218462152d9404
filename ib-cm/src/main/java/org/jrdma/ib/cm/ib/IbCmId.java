package org.jrdma.ib.cm.ib;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;

/**
 * {@code struct ib_cm_id}: one communication id. A call in a state it is not legal in throws a
 * {@link org.jrdma.ib.core.VerbsException} with EINVAL, as {@code cm.c} answers -EINVAL.
 */
public interface IbCmId extends AutoCloseable {
    IbDevice device();

    IbCmState state();

    /** The application's context ({@code cm_id->context}). */
    Object context();

    void context(Object context);

    int localCommId();

    int remoteCommId();

    /** {@code ib_cm_listen}: REQ and SIDR_REQ whose service ID matches under {@code serviceMask} (0: exactly). */
    void listen(long serviceId, long serviceMask);

    /** {@code ib_send_cm_req}: REQ_SENT; REP_RECEIVED, REJ_RECEIVED or REQ_ERROR (-ETIMEDOUT) follows. */
    void sendReq(IbCmReqParam param);

    /** {@code ib_send_cm_rep} on an id from REQ_RECEIVED: REP_SENT; RTU_RECEIVED, REJ_RECEIVED or REP_ERROR follows. */
    void sendRep(IbCmRepParam param);

    /** {@code ib_send_cm_rtu} after REP_RECEIVED: ESTABLISHED. */
    void sendRtu(byte[] privateData);

    /** {@code ib_send_cm_rej}: rejects the REQ or REP being answered (or aborts the exchange); the id goes IDLE. */
    void sendRej(IbCmRejReason reason, byte[] ari, byte[] privateData);

    /** {@code ib_send_cm_mra}: asks the peer to wait ({@code serviceTimeout} may carry {@link IbCm#MRA_FLAG_DELAY}). */
    void sendMra(int serviceTimeout, byte[] privateData);

    /** {@code ib_send_cm_dreq} on a connection: DREQ_SENT; DREP_RECEIVED or DREQ_ERROR follows, then TIMEWAIT_EXIT. */
    void sendDreq(byte[] privateData);

    /** {@code ib_send_cm_drep} after DREQ_RECEIVED: TIMEWAIT, then TIMEWAIT_EXIT. */
    void sendDrep(byte[] privateData);

    /** {@code ib_send_cm_sidr_req}: SIDR_REP_RECEIVED or SIDR_REQ_ERROR follows. */
    void sendSidrReq(IbCmSidrReqParam param);

    /** {@code ib_send_cm_sidr_rep} on an id from SIDR_REQ_RECEIVED: the status, QPN and Q_Key of the service. */
    void sendSidrRep(int status, int qpn, int qkey, byte[] privateData);

    /**
     * {@code ib_cm_init_qp_attr}: the attributes that move the connection's QP to {@code state} (INIT, RTR
     * or RTS). A passive side sets RTR's {@code rq_psn} to its REP's starting PSN itself, as IPoIB CM does.
     */
    QpAttr initQpAttr(QpState state);

    /** The connection's primary path (after sendReq or REQ_RECEIVED), or null. */
    IbCmPath path();

    /** {@code ib_destroy_cm_id}: sends what {@code cm_destroy_id} sends in the id's state (REJ, DREQ, DREP, SIDR_REP). */
    @Override
    void close();
}
