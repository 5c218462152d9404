package org.jrdma.ib.cm.impl;

import java.util.concurrent.ThreadLocalRandom;

import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.cm.ib.IbCmSidrReqParam;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;

/**
 * The connection calls of {@code cma.c} ({@code rdma_create_qp}, {@code rdma_connect}, {@code rdma_accept},
 * {@code rdma_reject}, {@code rdma_disconnect}) on an id's IB CM id: a REQ or SIDR_REQ with the CMA header,
 * the QP moved with the IB CM's attributes and the consumer's resources, REP, REJ, DREQ, DREP.
 */
final class CmaConnect {
    private final RdmaCmService cm;

    CmaConnect(RdmaCmService cm) {
        this.cm = cm;
    }

    QueuePair createQp(CmaId id, ProtectionDomain pd, QpInitAttr attr) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.CREATE_QP);
            if (id.qp != null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the id already has a QP");
            }
            if (id.device == null || pd.device() != id.device) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the PD is not on the id's device "
                        + (id.device == null ? "(none yet)" : id.device.name()));
            }
            QpType want = id.sidr ? QpType.UD : QpType.RC;
            if (attr.qpType() != want) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the " + id.ps + " port space takes " + want
                        + " QPs, not " + attr.qpType());
            }
            QueuePair qp = pd.createQp(attr);
            try {
                if (id.sidr) {
                    // cma_init_ud_qp: INIT with the P_Key index and RdmaCmService.RDMA_UDP_QKEY, then RTR and RTS (SQ PSN 0)
                    qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port).qkey(RdmaCmService.RDMA_UDP_QKEY));
                    qp.modify(new QpAttr().state(QpState.RTR));
                    qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
                } else {
                    // cma_init_ib_qp: INIT with the P_Key index and remote READ/WRITE
                    qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(id.port)
                            .accessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
                }
            } catch (RuntimeException e) {
                qp.destroy();
                throw e;
            }
            id.qp = qp;
            return qp;
        }
    }

    void destroyQp(CmaId id) {
        QueuePair qp;
        synchronized (cm.lock) {
            qp = id.qp;
            id.qp = null;
        }
        if (qp != null) {
            qp.destroy();
        }
    }

    /** {@code rdma_connect}: {@code cma_connect_ib} (a REQ) or {@code cma_resolve_ib_udp} (a SIDR_REQ). */
    void connect(CmaId id, RdmaConnParam param) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.CONNECT);
            byte[] user = param.privateData();
            int max = id.sidr ? CmaHeader.SIDR_REQ_USER_DATA_SIZE : CmaHeader.REQ_USER_DATA_SIZE;
            if (!id.sidr && id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: create the QP first (rdma_create_qp)");
            }
            if (user.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_connect: private data of " + user.length
                        + " bytes, at most " + max);
            }
            CmaHeader hdr = new CmaHeader(id.local.getAddress(), id.local.getPort(), id.remote.getAddress());
            long serviceId = id.ps.serviceId(id.remote.getPort());
            IbCmId conn = cm.ib.createId(id.device, cm.ibHandler, id);
            try {
                if (id.sidr) {
                    conn.sendSidrReq(new IbCmSidrReqParam().path(id.route).serviceId(serviceId)
                            .privateData(hdr.encodeSidr(user)));
                } else {
                    conn.sendReq(reqParam(id, param, serviceId, hdr.encode(user)));
                }
            } catch (RuntimeException e) {
                conn.close();
                throw e;
            }
            id.param = param;
            id.ib = conn;
            id.state = CmState.REQ_SENT;
        }
    }

    /**
     * The REQ of {@code cma_connect_ib}: the application's parameters, rdma_cm's timeouts, and a random starting
     * PSN (what this side's receive queue expects: the peer sends with it).
     */
    private static IbCmReqParam reqParam(CmaId id, RdmaConnParam param, long serviceId, byte[] privateData) {
        return new IbCmReqParam().primaryPath(id.route).serviceId(serviceId).qpNum(id.qp.qpNum())
                .startingPsn(ThreadLocalRandom.current().nextInt(1 << 24)).privateData(privateData)
                .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                .remoteCmResponseTimeout(RdmaCmService.CM_RESPONSE_TIMEOUT).localCmResponseTimeout(RdmaCmService.CM_RESPONSE_TIMEOUT)
                .flowControl(param.flowControl() != 0).retryCount(param.retryCount())
                .rnrRetryCount(param.rnrRetryCount()).maxCmRetries(RdmaCmService.MAX_CM_RETRIES).srq(param.srq());
    }

    /** {@code rdma_accept}: {@code cma_accept_ib} (the QP to RTR and RTS, then the REP) or a SIDR_REP. */
    void accept(CmaId id, RdmaConnParam param) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.ACCEPT);
            if (id.qp == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: create the QP first (rdma_create_qp)");
            }
            byte[] pd = param.privateData();
            int max = id.sidr ? SidrRep.PRIVATE_DATA_SIZE : CmRep.PRIVATE_DATA_SIZE;
            if (pd.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: private data of " + pd.length + " bytes, at most " + max);
            }
            id.param = param;
            if (id.sidr) {
                // cma_send_sidr_rep: SUCCESS with the QPN and the Q_Key
                id.ib.sendSidrRep(SidrRep.SUCCESS, id.qp.qpNum(), RdmaCmService.RDMA_UDP_QKEY, pd);
                id.state = CmState.ESTABLISHED;
                return;
            }
            // cma_modify_qp_rtr / cma_modify_qp_rts: the IB CM's attributes with the accept's PSN and resources
            int psn = ThreadLocalRandom.current().nextInt(1 << 24);
            id.qp.modify(id.ib.initQpAttr(QpState.RTR).rqPsn(psn)
                    .maxDestRdAtomic(Math.max(1, param.responderResources())));
            id.qp.modify(id.ib.initQpAttr(QpState.RTS).rnrRetry(param.rnrRetryCount())
                    .maxRdAtomic(Math.max(1, param.initiatorDepth())));
            id.ib.sendRep(new IbCmRepParam().qpNum(id.qp.qpNum()).startingPsn(psn).privateData(pd)
                    .responderResources(param.responderResources()).initiatorDepth(param.initiatorDepth())
                    .flowControl(param.flowControl() != 0).rnrRetryCount(param.rnrRetryCount())
                    .srq(id.qp.srq() != null));
            id.state = CmState.REP_SENT;
        }
    }

    /** {@code rdma_reject}: a REJ (consumer defined) or a SIDR_REP REJECT with the private data. */
    void reject(CmaId id, byte[] privateData) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.REJECT);
            byte[] pd = privateData == null ? new byte[0] : privateData;
            int max = id.sidr ? SidrRep.PRIVATE_DATA_SIZE : CmRej.PRIVATE_DATA_SIZE;
            if (pd.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: private data of " + pd.length + " bytes, at most " + max);
            }
            if (id.sidr) {
                id.ib.sendSidrRep(SidrRep.REJECT, 0, 0, pd);
            } else {
                id.ib.sendRej(IbCmRejReason.CONSUMER_DEFINED, null, pd);
            }
            id.state = CmState.ERROR;
        }
    }

    /**
     * {@code rdma_disconnect}: the QP to ERR, then a DREQ (connected), a DREP (the peer's DREQ came) or a REJ
     * (a REQ in flight). A UD id only cancels its SIDR_REQ. If the IB CM has moved on (its event is on the
     * way), nothing is sent.
     */
    void disconnect(CmaId id) {
        synchronized (cm.lock) {
            RdmaCmService.require(id, CmState.Call.DISCONNECT);
            RdmaCmService.toError(id.qp);
            try {
                CmState next = switch (id.sidr && id.state != CmState.REQ_SENT ? CmState.IDLE : id.state) {
                    case ESTABLISHED, REP_SENT -> { id.ib.sendDreq(null); yield CmState.DREQ_SENT; }
                    case DREQ_RCVD -> { id.ib.sendDrep(null); yield CmState.TIMEWAIT; }
                    case REQ_SENT -> {
                        if (id.sidr) {
                            id.ib.close(); // cancels the SIDR_REQ
                        } else {
                            id.ib.sendRej(IbCmRejReason.TIMEOUT, null, null); // cancel the connect
                        }
                        yield CmState.ERROR;
                    }
                    default -> id.state; // DREQ_SENT, TIMEWAIT, ERROR: already disconnecting or down
                };
                id.state = next;
            } catch (VerbsException e) {
                RdmaCmService.LOG.log(System.Logger.Level.DEBUG, "rdma_disconnect: the IB CM moved on: " + e);
            }
        }
    }
}
