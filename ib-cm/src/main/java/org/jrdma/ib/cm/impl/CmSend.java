package org.jrdma.ib.cm.impl;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.cm.ib.IbCmSidrReqParam;
import org.jrdma.ib.cm.ib.IbCmState;
import org.jrdma.ib.cm.wire.CmDrep;
import org.jrdma.ib.cm.wire.CmDreq;
import org.jrdma.ib.cm.wire.CmMra;
import org.jrdma.ib.cm.wire.CmPath;
import org.jrdma.ib.cm.wire.CmRej;
import org.jrdma.ib.cm.wire.CmRep;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.cm.wire.CmRtu;
import org.jrdma.ib.cm.wire.CmTimeout;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.cm.wire.SidrReq;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;

/**
 * The sending half of the IB CM ({@code ib_send_cm_*} and {@code cm_format_*} of {@code cm.c}): each call
 * checks the id's state, formats the message, sends it on the id's port and moves the id on. The
 * {@code *Locked} forms are for the CM itself, which holds the lock and has checked the state.
 */
final class CmSend {
    private final IbCmService cm;

    CmSend(IbCmService cm) {
        this.cm = cm;
    }

    /** {@code cm_form_tid}: the agent's hi_tid above the local comm ID as it lies in memory (little-endian). */
    static long cmTid(MadAgent agent, int localCommId) {
        return (long) agent.hiTid() << 32 | (Integer.reverseBytes(localCommId) & 0xffffffffL);
    }

    static void checkSize(String call, byte[] data, int max) {
        if (data != null && data.length > max) {
            throw new VerbsException(Errno.EINVAL, call + ": private data of " + data.length + " bytes, at most " + max);
        }
    }

    // ------------------------------------------------------------------ connection setup

    /** {@code ib_send_cm_req}. */
    void req(CmId id, IbCmReqParam p) {
        checkSize("ib_send_cm_req", p.privateData(), CmReq.PRIVATE_DATA_SIZE);
        IbCmPath path = p.primaryPath();
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_req", IbCmState.IDLE);
            start(id, path, p.serviceId());
            id.localQpn = p.qpNum();
            id.rqPsn = p.startingPsn();
            id.responderResources = p.responderResources();
            id.initiatorDepth = p.initiatorDepth();
            id.retryCount = p.retryCount();
            id.pathMtu = path.mtu();
            // the local ACK timeout from this CA's ack delay (RoCE: rxe's, as Linux's REQ over rxe) and the packet life
            int caAckDelay = path.lidRouted() ? id.device.queryDevice().localCaAckDelay() : IbCmService.TARGET_ACK_DELAY;
            id.ackTimeout = CmTimeout.ackTimeout(caAckDelay, path.packetLife());
            CmReq req = new CmReq().localCommId(id.localCommId).serviceId(p.serviceId())
                    .localCaGuid(id.device.nodeGuid()).localQkey(0).localQpn(p.qpNum())
                    .responderResources(p.responderResources()).initiatorDepth(p.initiatorDepth())
                    .remoteCmResponseTimeout(p.remoteCmResponseTimeout()).transportType(0).flowControl(p.flowControl())
                    .startingPsn(p.startingPsn()).localCmResponseTimeout(p.localCmResponseTimeout())
                    .retryCount(p.retryCount()).pkey(0xffff).pathMtu(path.mtu())
                    .rnrRetryCount(p.rnrRetryCount()).maxCmRetries(p.maxCmRetries()).srq(p.srq())
                    .primaryPath(reqPath(path, id.ackTimeout)).privateData(p.privateData());
            id.state = IbCmState.REQ_SENT;
            id.outstanding = send(id, req.encode(id.tid), cm.madTimeoutMs, cm.madRetries);
            cm.byCommId.put(id.localCommId, id);
            cm.count(CmCounter.REQ_SENT);
        }
    }

    /** An active id takes its path, a new local comm ID (the SIDR request ID) and the TID of the exchange. */
    private void start(CmId id, IbCmPath path, long serviceId) {
        MadAgent agent = cm.agent(id.device, path.port());
        id.path = path;
        id.madDlid = path.dlid();
        id.madSl = path.sl();
        id.localCommId = cm.newCommId();
        id.tid = cmTid(agent, id.localCommId);
        id.serviceId = serviceId;
    }

    /**
     * {@code cm_format_req}'s primary path: InfiniBand the path's LIDs, subnet local when the hop limit is at
     * most 1; RoCE the permissive LID in both (Linux's "work-around until there's a way to obtain remote LID").
     */
    private static CmPath reqPath(IbCmPath path, int ackTimeout) {
        int slid = path.lidRouted() ? path.slid() : 0xffff;
        int dlid = path.lidRouted() ? path.dlid() : 0xffff;
        return new CmPath().localLid(slid).remoteLid(dlid).localGid(path.sgid()).remoteGid(path.dgid())
                .flowLabel(path.flowLabel()).packetRate(path.rate()).trafficClass(path.trafficClass())
                .hopLimit(path.hopLimit()).sl(path.sl()).subnetLocal(path.lidRouted() && path.hopLimit() <= 1)
                .localAckTimeout(ackTimeout);
    }

    /** {@code ib_send_cm_rep}: retried at most as often as the REQ's {@code max_cm_retries} allows. */
    void rep(CmId id, IbCmRepParam p) {
        checkSize("ib_send_cm_rep", p.privateData(), CmRep.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_rep", IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT);
            id.localQpn = p.qpNum();
            id.rqPsn = p.startingPsn();
            id.responderResources = p.responderResources();
            id.initiatorDepth = p.initiatorDepth();
            id.rnrRetryCount = p.rnrRetryCount();
            CmRep rep = new CmRep().localCommId(id.localCommId).remoteCommId(id.remoteCommId).localQkey(0)
                    .localQpn(p.qpNum()).startingPsn(p.startingPsn())
                    .responderResources(p.responderResources()).initiatorDepth(p.initiatorDepth())
                    .targetAckDelay(IbCmService.TARGET_ACK_DELAY).failoverAccepted(p.failoverAccepted() ? 1 : 0)
                    .flowControl(p.flowControl()).rnrRetryCount(p.rnrRetryCount()).srq(p.srq())
                    .localCaGuid(id.device.nodeGuid()).privateData(p.privateData());
            id.state = IbCmState.REP_SENT;
            id.mra = null;
            id.outstanding = send(id, rep.encode(id.tid), cm.madTimeoutMs, Math.min(cm.madRetries, id.maxCmRetries));
            id.lastReply = id.outstanding;
            cm.count(CmCounter.REP_SENT);
        }
    }

    /** {@code ib_send_cm_rtu}. */
    void rtu(CmId id, byte[] privateData) {
        checkSize("ib_send_cm_rtu", privateData, CmRtu.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_rtu", IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT);
            CmRtu rtu = new CmRtu().localCommId(id.localCommId).remoteCommId(id.remoteCommId).privateData(privateData);
            id.lastReply = send(id, rtu.encode(id.tid), 0, 0);
            id.state = IbCmState.ESTABLISHED;
            cm.count(CmCounter.ESTABLISHED);
        }
    }

    /** {@code ib_send_cm_rej}. */
    void rej(CmId id, IbCmRejReason reason, byte[] ari, byte[] privateData) {
        checkSize("ib_send_cm_rej", privateData, CmRej.PRIVATE_DATA_SIZE);
        checkSize("ib_send_cm_rej (ARI)", ari, CmRej.ARI_LENGTH);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_rej", IbCmState.REQ_SENT, IbCmState.MRA_REQ_RCVD, IbCmState.REQ_RCVD,
                    IbCmState.MRA_REQ_SENT, IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT, IbCmState.REP_SENT,
                    IbCmState.MRA_REP_RCVD, IbCmState.ESTABLISHED);
            rejLocked(id, reason, ari, privateData);
        }
    }

    /** A REJ of the exchange in progress ({@code cm_format_rej}: the REP when one was sent or received); the id goes IDLE. */
    void rejLocked(CmId id, IbCmRejReason reason, byte[] ari, byte[] privateData) {
        cm.cancelOutstanding(id);
        int msg = switch (id.state) {
            case REP_RCVD, MRA_REP_SENT, REP_SENT, MRA_REP_RCVD -> CmMra.MSG_REP;
            default -> CmMra.MSG_REQ;
        };
        CmRej rej = new CmRej().localCommId(id.localCommId).remoteCommId(id.remoteCommId).messageRejected(msg)
                .reason(reason.code()).privateData(privateData);
        if (ari != null && ari.length > 0) {
            rej.ari(ari).rejectedInfoLength(ari.length);
        }
        id.state = IbCmState.IDLE;
        cm.forget(id);
        MadAgent a = cm.agentOrNull(id.device, id.port());
        if (a != null && id.path != null && (id.path.lidRouted() || id.path.dgid() != null)) {
            sendRej(a, madAv(id), rej.encode(id.tid));
        }
    }

    /** A REJ to the sender of a message that has no id here ({@code cm_issue_rej}). */
    void rejTo(MadAgent agent, AhAttr av, long tid, int localCommId, int remoteCommId, IbCmRejReason reason) {
        if (av == null) {
            return;
        }
        CmRej rej = new CmRej().localCommId(localCommId).remoteCommId(remoteCommId).reason(reason.code());
        sendRej(agent, av, rej.encode(tid));
    }

    private void sendRej(MadAgent agent, AhAttr av, Mad m) {
        try {
            agent.send(new MadSend(m).ah(av));
            cm.count(CmCounter.REJ_SENT);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }

    /**
     * {@code ib_send_cm_mra}: MRA_REQ_SENT or MRA_REP_SENT. With {@link IbCm#MRA_FLAG_DELAY} nothing is sent
     * now: the MRA answers the next duplicate REQ (as rdma_cm's {@code CMA_CM_MRA_SETTING} does).
     */
    void mra(CmId id, int serviceTimeout, byte[] privateData) {
        checkSize("ib_send_cm_mra", privateData, CmMra.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_mra", IbCmState.REQ_RCVD, IbCmState.REP_RCVD);
            boolean forReq = id.state == IbCmState.REQ_RCVD;
            CmMra mra = new CmMra().localCommId(id.localCommId).remoteCommId(id.remoteCommId)
                    .messageMraed(forReq ? CmMra.MSG_REQ : CmMra.MSG_REP)
                    .serviceTimeout(serviceTimeout & ~IbCm.MRA_FLAG_DELAY).privateData(privateData);
            id.mra = new MadSend(mra.encode(id.tid)).ah(madAv(id));
            id.state = forReq ? IbCmState.MRA_REQ_SENT : IbCmState.MRA_REP_SENT;
            if ((serviceTimeout & IbCm.MRA_FLAG_DELAY) == 0) {
                resend(id, id.mra, CmCounter.MRA_SENT);
            }
        }
    }

    // ------------------------------------------------------------------ disconnection

    /** {@code ib_send_cm_dreq}: on a connection (the passive side also before the RTU came). */
    void dreq(CmId id, byte[] privateData) {
        checkSize("ib_send_cm_dreq", privateData, CmDreq.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_dreq", IbCmState.ESTABLISHED, IbCmState.REP_SENT,
                    IbCmState.MRA_REP_RCVD);
            dreqLocked(id, privateData);
        }
    }

    void dreqLocked(CmId id, byte[] privateData) {
        cm.cancelOutstanding(id);
        MadAgent agent = cm.agent(id.device, id.port());
        id.dreqTid = cmTid(agent, id.localCommId);
        CmDreq dreq = new CmDreq().localCommId(id.localCommId).remoteCommId(id.remoteCommId).remoteQpn(id.remoteQpn)
                .privateData(privateData);
        id.state = IbCmState.DREQ_SENT;
        id.outstanding = send(id, dreq.encode(id.dreqTid), cm.madTimeoutMs, cm.madRetries);
        cm.count(CmCounter.DREQ_SENT);
    }

    /** {@code ib_send_cm_drep}: TIMEWAIT. */
    void drep(CmId id, byte[] privateData) {
        checkSize("ib_send_cm_drep", privateData, CmDrep.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_drep", IbCmState.DREQ_RCVD);
            drepLocked(id, privateData);
            cm.enterTimewait(id);
        }
    }

    /** A DREP for the DREQ received last (also the answer to a duplicate one). */
    void drepLocked(CmId id, byte[] privateData) {
        try {
            CmDrep drep = new CmDrep().localCommId(id.localCommId).remoteCommId(id.remoteCommId).privateData(privateData);
            id.lastReply = send(id, drep.encode(id.dreqTid), 0, 0);
            cm.count(CmCounter.DREP_SENT);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }

    // ------------------------------------------------------------------ SIDR

    /** {@code ib_send_cm_sidr_req}: the request ID is the id's local comm ID. */
    void sidrReq(CmId id, IbCmSidrReqParam p) {
        checkSize("ib_send_cm_sidr_req", p.privateData(), SidrReq.PRIVATE_DATA_SIZE);
        IbCmPath path = p.path();
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_sidr_req", IbCmState.IDLE);
            start(id, path, p.serviceId());
            SidrReq req = new SidrReq().requestId(id.localCommId).pkey(0xffff).serviceId(p.serviceId())
                    .privateData(p.privateData());
            id.state = IbCmState.SIDR_REQ_SENT;
            id.outstanding = send(id, req.encode(id.tid), cm.madTimeoutMs, cm.madRetries);
            cm.byCommId.put(id.localCommId, id);
            cm.count(CmCounter.SIDR_REQ_SENT);
        }
    }

    /** {@code ib_send_cm_sidr_rep}: the id goes IDLE. */
    void sidrRep(CmId id, int status, int qpn, int qkey, byte[] privateData) {
        checkSize("ib_send_cm_sidr_rep", privateData, SidrRep.PRIVATE_DATA_SIZE);
        synchronized (cm.lock) {
            IbCmService.require(id, "ib_send_cm_sidr_rep", IbCmState.SIDR_REQ_RCVD);
            sidrRepLocked(id, status, qpn, qkey, privateData);
        }
    }

    void sidrRepLocked(CmId id, int status, int qpn, int qkey, byte[] privateData) {
        SidrRep rep = new SidrRep().requestId(id.remoteCommId).status(status).qpn(qpn).qkey(qkey)
                .serviceId(id.serviceId).privateData(privateData);
        id.state = IbCmState.IDLE;
        try {
            send(id, rep.encode(id.tid), 0, 0);
            cm.count(CmCounter.SIDR_REP_SENT);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }

    /** A SIDR_REP to the sender of a SIDR_REQ that has no id here. */
    void sidrRepTo(MadAgent agent, MadRecv r, int requestId, long serviceId, int status) {
        SidrRep rep = new SidrRep().requestId(requestId).status(status).serviceId(serviceId);
        replyTo(agent, r, rep.encode(r.mad().tid()), CmCounter.SIDR_REP_SENT);
    }

    /** Sends {@code m} back to where {@code r} came from ({@code cm_create_response_msg_ah}), counted as {@code what}. */
    void replyTo(MadAgent agent, MadRecv r, Mad m, CmCounter what) {
        try {
            agent.send(new MadSend(m).ah(agent.ahAttrFromWc(r)).remoteQpn(r.srcQp()));
            cm.count(what);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }

    // ------------------------------------------------------------------ the MADs

    /** Where the id's CM MADs go: RoCE the peer's GID; InfiniBand LID-routed (the path, or the REQ's SLID and SL). */
    static AhAttr madAv(CmId id) {
        IbCmPath p = id.path;
        if (!p.lidRouted()) {
            return new AhAttr().portNum(p.port()).grh(p.dgid(), p.sgidIndex());
        }
        return new AhAttr().portNum(p.port()).dlid(id.madDlid).sl(id.madSl);
    }

    /** Sends {@code m} for the id, retried {@code retries} times {@code timeoutMs} apart until answered (0: once). */
    MadSend send(CmId id, Mad m, int timeoutMs, int retries) {
        MadSend s = new MadSend(m).ah(madAv(id)).timeoutMs(timeoutMs).retries(retries).context(id);
        cm.agent(id.device, id.port()).send(s);
        return s;
    }

    /** Sends {@code s}'s MAD once more (a reply to a duplicate). */
    void resend(CmId id, MadSend s, CmCounter what) {
        try {
            cm.agent(id.device, id.port()).send(new MadSend(s.mad()).ah(s.ah()));
            cm.count(what);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }
}
