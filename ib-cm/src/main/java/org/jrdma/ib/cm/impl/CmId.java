package org.jrdma.ib.cm.impl;

import org.jrdma.ib.cm.ib.IbCmHandler;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.cm.ib.IbCmSidrReqParam;
import org.jrdma.ib.cm.ib.IbCmState;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.mad.MadSend;

/**
 * {@code struct cm_id_private}: one IB CM communication id. Every field is guarded by the IB CM's lock;
 * the calls delegate to {@link IbCmService}, which owns the state machine.
 */
final class CmId implements IbCmId {
    final IbCmService cm;
    final IbDevice device;
    final IbCmHandler handler;
    volatile Object context;

    IbCmState state = IbCmState.IDLE;
    boolean destroyed;
    /** The primary path: the consumer's (REQ, SIDR_REQ) or the REQ's seen from here. */
    IbCmPath path;
    /** Listening: the service ID and mask ({@code ib_cm_listen}). */
    long serviceId;
    long serviceMask;

    int localCommId;
    int remoteCommId;
    long remoteCaGuid;
    int localQpn;
    int remoteQpn;
    /** {@code rq_psn}: the PSN this side's receive queue starts at (its REQ's or REP's starting PSN). */
    int rqPsn;
    /** {@code sq_psn}: the peer's starting PSN. */
    int sqPsn;
    int responderResources;
    int initiatorDepth;
    int retryCount;
    int rnrRetryCount;
    /** The path MTU code the connection runs at. */
    int pathMtu;
    /** The QP's local ACK timeout ({@code av.timeout}). */
    int ackTimeout;
    /** The peer's {@code max_cm_retries} (a REP is retried at most that often). */
    int maxCmRetries;
    /** The TID of the exchange in progress (REQ/REP/RTU share the REQ's; DREQ/DREP the DREQ's). */
    long tid;
    long dreqTid;
    /** Where CM MADs go on InfiniBand: the REQ's SLID and SL on the passive side, the path's on the active side. */
    int madDlid;
    int madSl;
    /** The MAD being retransmitted until answered (REQ, REP, DREQ or SIDR_REQ), or null. */
    MadSend outstanding;
    /** The last REP, RTU or DREP sent, to answer duplicates with. */
    MadSend lastReply;
    /** The MRA to answer duplicate REQs with in MRA_REQ_SENT, or null. */
    MadSend mra;

    CmId(IbCmService cm, IbDevice device, IbCmHandler handler, Object context) {
        this.cm = cm;
        this.device = device;
        this.handler = handler;
        this.context = context;
    }

    /** The port the id runs on (its path's; 0 before it has one). */
    int port() {
        return path == null ? 0 : path.port();
    }

    @Override public IbDevice device() { return device; }
    @Override public IbCmState state() { synchronized (cm.lock) { return state; } }
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }
    @Override public int localCommId() { synchronized (cm.lock) { return localCommId; } }
    @Override public int remoteCommId() { synchronized (cm.lock) { return remoteCommId; } }
    @Override public IbCmPath path() { synchronized (cm.lock) { return path; } }
    @Override public void listen(long serviceId, long serviceMask) { cm.listen(this, serviceId, serviceMask); }
    @Override public void sendReq(IbCmReqParam param) { cm.send.req(this, param); }
    @Override public void sendRep(IbCmRepParam param) { cm.send.rep(this, param); }
    @Override public void sendRtu(byte[] privateData) { cm.send.rtu(this, privateData); }
    @Override public void sendRej(IbCmRejReason reason, byte[] ari, byte[] privateData) { cm.send.rej(this, reason, ari, privateData); }
    @Override public void sendMra(int serviceTimeout, byte[] privateData) { cm.send.mra(this, serviceTimeout, privateData); }
    @Override public void sendDreq(byte[] privateData) { cm.send.dreq(this, privateData); }
    @Override public void sendDrep(byte[] privateData) { cm.send.drep(this, privateData); }
    @Override public void sendSidrReq(IbCmSidrReqParam param) { cm.send.sidrReq(this, param); }
    @Override public void sendSidrRep(int status, int qpn, int qkey, byte[] privateData) { cm.send.sidrRep(this, status, qpn, qkey, privateData); }
    @Override public QpAttr initQpAttr(QpState qpState) { return cm.initQpAttr(this, qpState); }
    @Override public void close() { cm.destroy(this); }

    @Override
    public String toString() {
        return "ib_cm_id[" + state + (localCommId != 0 ? String.format(" comm 0x%08x/0x%08x", localCommId, remoteCommId) : "")
                + (serviceId != 0 ? String.format(" sid 0x%016x", serviceId) : "") + "]";
    }
}
