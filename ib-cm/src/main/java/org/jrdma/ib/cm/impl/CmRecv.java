package org.jrdma.ib.cm.impl;

import java.util.List;

import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmEventType;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmState;
import org.jrdma.ib.cm.wire.CmAttr;
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
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;

/**
 * The receiving half of the IB CM ({@code cm_*_handler} of {@code cm.c}): each received message moves its
 * id on and queues the event for the id's handler; messages for no id are answered as cm.c answers them
 * (REJ, DREP, SIDR_REP) or dropped, counted by reason. Also the end of unanswered sends (timeouts).
 */
final class CmRecv {
    private final IbCmService cm;

    CmRecv(IbCmService cm) {
        this.cm = cm;
    }

    void receive(IbDevice dev, int port, MadAgent agent, MadRecv r) {
        try {
            Mad m = r.mad();
            if (m.classVersion() != CmAttr.CLASS_VERSION || m.method() != Mad.METHOD_SEND) {
                cm.count(CmCounter.DROPPED_BAD_HEADER);
                return;
            }
            cm.count(CmCounter.RCVD);
            switch (m.attrId()) {
                case CmAttr.REQ -> onReq(dev, port, agent, r, CmReq.decode(m));
                case CmAttr.REP -> onRep(CmRep.decode(m));
                case CmAttr.RTU -> onRtu(CmRtu.decode(m));
                case CmAttr.REJ -> onRej(CmRej.decode(m));
                case CmAttr.DREQ -> onDreq(agent, r, CmDreq.decode(m));
                case CmAttr.DREP -> onDrep(CmDrep.decode(m));
                case CmAttr.MRA -> onMra(CmMra.decode(m));
                case CmAttr.SIDR_REQ -> onSidrReq(dev, port, agent, r, SidrReq.decode(m));
                case CmAttr.SIDR_REP -> onSidrRep(SidrRep.decode(m));
                // cm_lap_handler / cm_apr_handler: alternate paths are not supported over RoCE
                case CmAttr.LAP, CmAttr.APR -> cm.count(CmCounter.DROPPED_UNSUPPORTED_ATTR);
                default -> cm.count(CmCounter.DROPPED_UNKNOWN_ATTR);
            }
        } catch (IllegalArgumentException e) {
            cm.count(CmCounter.DROPPED_MALFORMED); // a field out of its range (the codecs check every one)
            IbCmService.LOG.log(System.Logger.Level.DEBUG, "ib_cm: dropped a malformed CM MAD: " + e);
        } catch (RuntimeException e) {
            cm.count(CmCounter.DROPPED_ERROR);
            IbCmService.LOG.log(System.Logger.Level.DEBUG, "ib_cm: dropped a CM MAD: " + e, e);
        }
    }

    // ------------------------------------------------------------------ REQ

    /** {@code cm_req_handler}: a new id in REQ_RCVD for the listener, or a REJ (one {@link #rejectReq} for each reason). */
    private void onReq(IbDevice dev, int port, MadAgent agent, MadRecv r, CmReq req) {
        Gid from = r.sgid() != null ? r.sgid() : req.primaryPath().localGid(); // the GRH is what answers go to
        synchronized (cm.lock) {
            List<Long> key = List.of((long) req.localCommId(), req.localCaGuid());
            CmId dup = cm.byRemoteId.get(key);
            if (dup != null) {
                dupReq(dev, port, agent, r, req, from, dup);
                return;
            }
            CmId stale = liveByRemoteQpn(req.localQpn(), req.localCaGuid());
            CmId listener = cm.findListener(dev, req.serviceId());
            IbCmRejReason reason = stale != null ? IbCmRejReason.STALE_CONN
                    : listener == null ? IbCmRejReason.INVALID_SERVICE_ID
                    : req.transportType() != 0 ? IbCmRejReason.INVALID_TRANSPORT_TYPE : null;
            if (reason != null) {
                rejectReq(dev, port, agent, r, req, from, reason);
                if (stale != null && stale.state == IbCmState.ESTABLISHED) {
                    disconnectStale(stale);
                }
                return;
            }
            CmId conn = newConn(dev, port, r, req, from, listener);
            cm.byRemoteId.put(key, conn);
            cm.count(CmCounter.REQ_RCVD);
            cm.deliver(conn, new IbCmEvent(IbCmEventType.REQ_RECEIVED).listenId(listener).path(conn.path)
                    .serviceId(req.serviceId()).remoteCaGuid(req.localCaGuid()).remoteQpn(req.localQpn())
                    .startingPsn(req.startingPsn()).responderResources(req.responderResources())
                    .initiatorDepth(req.initiatorDepth()).flowControl(req.flowControl()).retryCount(req.retryCount())
                    .rnrRetryCount(req.rnrRetryCount()).srq(req.srq()).transportType(req.transportType())
                    .privateData(req.privateData()));
        }
    }

    /**
     * {@code cm_dup_req_handler}: MRA_REQ_SENT resends the MRA, TIMEWAIT rejects the REQ as stale; the
     * others drop it (REQ_RCVD: being answered; REP_SENT: the REP is being retransmitted).
     */
    private void dupReq(IbDevice dev, int port, MadAgent agent, MadRecv r, CmReq req, Gid from, CmId dup) {
        cm.count(CmCounter.DUP_REQ);
        if (dup.destroyed) {
            return;
        }
        if (dup.state == IbCmState.TIMEWAIT) {
            cm.send.rejTo(agent, replyAv(dev, port, r, from, dup.path.sgidIndex()), r.mad().tid(), dup.localCommId,
                    req.localCommId(), IbCmRejReason.STALE_CONN);
        } else if (dup.state == IbCmState.MRA_REQ_SENT && dup.mra != null) {
            cm.send.resend(dup, dup.mra, CmCounter.MRA_SENT);
        }
    }

    /** {@code cm_issue_rej} for a REQ that gets no id: counted by reason. */
    private void rejectReq(IbDevice dev, int port, MadAgent agent, MadRecv r, CmReq req, Gid from, IbCmRejReason reason) {
        cm.count(switch (reason) {
            case STALE_CONN -> CmCounter.REJ_STALE_CONN;
            case INVALID_SERVICE_ID -> CmCounter.REJ_NO_LISTENER;
            default -> CmCounter.REJ_BAD_TRANSPORT;
        });
        cm.send.rejTo(agent, replyAv(dev, port, r, from, 0), r.mad().tid(), 0, req.localCommId(), reason);
    }

    /**
     * {@code cm_match_req}: a new REQ from a QP we are connected to means the peer lost that connection;
     * the old one is disconnected (its consumer hears DREP_RECEIVED or DREQ_ERROR).
     */
    private void disconnectStale(CmId stale) {
        try {
            cm.send.dreqLocked(stale, null);
        } catch (RuntimeException e) {
            cm.count(CmCounter.SEND_FAILED);
        }
    }

    /** The passive id of an accepted REQ: the REQ's path seen from this side ({@code cm_format_paths_from_req}). */
    private CmId newConn(IbDevice dev, int port, MadRecv r, CmReq req, Gid from, CmId listener) {
        CmPath pp = req.primaryPath();
        boolean lidRouted = dev.linkLayer(port) == LinkLayer.INFINIBAND;
        Gid local = r.dgid() != null ? r.dgid() : pp.remoteGid();
        CmId conn = new CmId(cm, dev, listener.handler, listener.context);
        conn.path = new IbCmPath(port, gidIndex(dev, port, local), local, from, lidRouted, pp.remoteLid(), pp.localLid(),
                pp.sl(), req.pathMtu(), pp.packetRate(), Math.max(0, pp.localAckTimeout() - 1), pp.hopLimit(),
                pp.trafficClass(), pp.flowLabel());
        // answers go back to the REQ's SLID and SL (cm_init_av_for_response)
        conn.madDlid = r.slid();
        conn.madSl = r.sl();
        conn.tid = r.mad().tid();
        conn.serviceId = req.serviceId();
        conn.remoteCommId = req.localCommId();
        conn.remoteCaGuid = req.localCaGuid();
        conn.remoteQpn = req.localQpn();
        conn.sqPsn = req.startingPsn();
        conn.responderResources = req.initiatorDepth();
        conn.initiatorDepth = req.responderResources();
        conn.retryCount = req.retryCount();
        conn.rnrRetryCount = req.rnrRetryCount();
        conn.pathMtu = req.pathMtu();
        conn.ackTimeout = pp.localAckTimeout();
        conn.maxCmRetries = req.maxCmRetries();
        conn.localCommId = cm.newCommId();
        conn.state = IbCmState.REQ_RCVD;
        cm.ids.add(conn);
        cm.byCommId.put(conn.localCommId, conn);
        return conn;
    }

    /** The index of {@code gid} in the port's GID table ({@code ib_init_ah_attr_from_wc}), 0 if it is not there. */
    private static int gidIndex(IbDevice dev, int port, Gid gid) {
        try {
            int n = dev.queryPort(port).gidTblLen();
            for (int i = 0; i < n; i++) {
                if (gid.equals(dev.queryGid(port, i))) {
                    return i;
                }
            }
        } catch (RuntimeException e) {
            // going away
        }
        return 0;
    }

    /** The live (or time-waiting) connection to remote QP {@code qpn} of CA {@code caGuid} ({@code cm_insert_remote_qpn}). */
    private CmId liveByRemoteQpn(int qpn, long caGuid) {
        for (CmId c : cm.ids) {
            if (c.remoteCaGuid == caGuid && c.remoteQpn == qpn && !c.destroyed) {
                switch (c.state) {
                    case REQ_RCVD, MRA_REQ_SENT, REP_SENT, MRA_REP_RCVD, ESTABLISHED, DREQ_SENT, DREQ_RCVD, TIMEWAIT -> {
                        return c;
                    }
                    default -> {
                    }
                }
            }
        }
        return null;
    }

    /** The address vector back to the sender of {@code r}: the GRH's source on RoCE, its SLID and SL on IB. */
    private static AhAttr replyAv(IbDevice dev, int port, MadRecv r, Gid to, int sgidIndex) {
        if (r.sgid() == null && dev.linkLayer(port) == LinkLayer.INFINIBAND) {
            return new AhAttr().portNum(port).dlid(r.slid()).sl(r.sl());
        }
        return to == null ? null : new AhAttr().portNum(port).grh(to, sgidIndex);
    }

    // ------------------------------------------------------------------ REP, RTU, REJ, MRA

    /** {@code cm_rep_handler}: REP_RCVD; a duplicate REP on a connection is answered with the RTU again. */
    private void onRep(CmRep rep) {
        synchronized (cm.lock) {
            CmId id = cm.byCommId.get(rep.remoteCommId());
            if (id == null || id.destroyed || isSidr(id)) {
                cm.count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            if (id.state == IbCmState.ESTABLISHED && id.lastReply != null) {
                cm.send.resend(id, id.lastReply, CmCounter.DUP_ANSWERED); // the RTU was lost
                return;
            }
            if (id.state != IbCmState.REQ_SENT && id.state != IbCmState.MRA_REQ_RCVD) {
                cm.count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            cm.cancelOutstanding(id);
            id.remoteCommId = rep.localCommId();
            id.remoteCaGuid = rep.localCaGuid();
            id.remoteQpn = rep.localQpn();
            id.sqPsn = rep.startingPsn();
            id.initiatorDepth = Math.min(id.initiatorDepth, rep.responderResources());
            id.rnrRetryCount = rep.rnrRetryCount();
            id.state = IbCmState.REP_RCVD;
            cm.count(CmCounter.REP_RCVD);
            cm.deliver(id, new IbCmEvent(IbCmEventType.REP_RECEIVED).remoteCaGuid(rep.localCaGuid())
                    .remoteQpn(rep.localQpn()).startingPsn(rep.startingPsn())
                    .responderResources(rep.responderResources()).initiatorDepth(rep.initiatorDepth())
                    .flowControl(rep.flowControl()).rnrRetryCount(rep.rnrRetryCount()).srq(rep.srq())
                    .privateData(rep.privateData()));
        }
    }

    private static boolean isSidr(CmId id) {
        return id.state == IbCmState.SIDR_REQ_SENT || id.state == IbCmState.SIDR_REQ_RCVD;
    }

    /** {@code cm_rtu_handler}: ESTABLISHED. */
    private void onRtu(CmRtu rtu) {
        synchronized (cm.lock) {
            CmId id = cm.byCommId.get(rtu.remoteCommId());
            if (id == null || id.destroyed || (id.state != IbCmState.REP_SENT && id.state != IbCmState.MRA_REP_RCVD)
                    || id.remoteCommId != rtu.localCommId()) {
                cm.count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            cm.cancelOutstanding(id);
            id.state = IbCmState.ESTABLISHED;
            cm.count(CmCounter.ESTABLISHED);
            cm.deliver(id, new IbCmEvent(IbCmEventType.RTU_RECEIVED).privateData(rtu.privateData()));
        }
    }

    /** {@code cm_rej_handler}: the exchange or the connection ends; the id goes IDLE. */
    private void onRej(CmRej rej) {
        synchronized (cm.lock) {
            CmId id = cm.byCommId.get(rej.remoteCommId());
            if (id == null || id.destroyed || isSidr(id)) {
                cm.count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            switch (id.state) {
                case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, ESTABLISHED -> {
                }
                default -> {
                    cm.count(CmCounter.DROPPED_WRONG_STATE);
                    return;
                }
            }
            cm.cancelOutstanding(id);
            id.state = IbCmState.IDLE;
            cm.forget(id);
            cm.count(CmCounter.REJ_RCVD);
            int ariLength = Math.min(rej.rejectedInfoLength(), CmRej.ARI_LENGTH);
            cm.deliver(id, new IbCmEvent(IbCmEventType.REJ_RECEIVED).rejReason(rej.reason())
                    .ari(java.util.Arrays.copyOf(rej.ari(), ariLength)).privateData(rej.privateData()));
        }
    }

    /** {@code cm_mra_handler}: the peer needs time to answer our REQ or REP; the send waits that much longer. */
    private void onMra(CmMra mra) {
        synchronized (cm.lock) {
            CmId id = cm.byCommId.get(mra.remoteCommId());
            boolean forReq = mra.messageMraed() == CmMra.MSG_REQ;
            if (id == null || id.destroyed || isSidr(id) || (!forReq && id.remoteCommId != mra.localCommId())
                    || mra.messageMraed() > CmMra.MSG_OTHER) {
                cm.count(CmCounter.DROPPED_UNKNOWN_CONN);
                return;
            }
            IbCmState waiting = forReq ? IbCmState.REQ_SENT : IbCmState.REP_SENT;
            IbCmState mraed = forReq ? IbCmState.MRA_REQ_RCVD : IbCmState.MRA_REP_RCVD;
            if (mra.messageMraed() != CmMra.MSG_OTHER && id.state == mraed) {
                cm.count(CmCounter.DUP_MRA);
                return;
            }
            // the service timeout plus the packet life time (cm_id_priv->av.timeout = life time + 1)
            int timeoutMs = CmTimeout.toMs(mra.serviceTimeout()) + CmTimeout.toMs(id.path.packetLife() + 1);
            MadSend s = id.outstanding;
            MadAgent a = cm.agentOrNull(id.device, id.port());
            if (mra.messageMraed() == CmMra.MSG_OTHER || id.state != waiting || s == null || a == null
                    || !a.modify(s, timeoutMs)) {
                cm.count(CmCounter.DROPPED_WRONG_STATE);
                return;
            }
            id.state = mraed;
            cm.count(CmCounter.MRA_RCVD);
            cm.deliver(id, new IbCmEvent(IbCmEventType.MRA_RECEIVED).privateData(mra.privateData()));
        }
    }

    // ------------------------------------------------------------------ DREQ, DREP

    /** {@code cm_dreq_handler}. */
    private void onDreq(MadAgent agent, MadRecv r, CmDreq dreq) {
        synchronized (cm.lock) {
            CmId id = cm.byCommId.get(dreq.remoteCommId());
            if (id == null || id.destroyed || isSidr(id) || id.remoteCommId != dreq.localCommId()) {
                drepUnknown(agent, r, dreq);
                return;
            }
            if (id.localQpn != dreq.remoteQpn()) {
                cm.count(CmCounter.DROPPED_WRONG_QPN); // cm_dreq_handler: local_qpn != the DREQ's remote QPN
                return;
            }
            if (id.state == IbCmState.DREQ_RCVD) {
                cm.count(CmCounter.DUP_DREQ);
                return;
            }
            id.dreqTid = r.mad().tid();
            switch (id.state) {
                // TIMEWAIT: a duplicate, our DREP was lost; DREQ_SENT: both sides disconnect at once, answer and
                // keep waiting for ours
                case TIMEWAIT, DREQ_SENT -> cm.send.drepLocked(id, null);
                case ESTABLISHED, REP_SENT, MRA_REP_RCVD -> {
                    cm.cancelOutstanding(id);
                    id.state = IbCmState.DREQ_RCVD;
                    cm.count(CmCounter.DREQ_RCVD);
                    cm.deliver(id, new IbCmEvent(IbCmEventType.DREQ_RECEIVED).privateData(dreq.privateData()));
                }
                default -> cm.count(CmCounter.DROPPED_WRONG_STATE);
            }
        }
    }

    /**
     * {@code cm_issue_drep}: a DREQ for an unknown connection is answered with a DREP (comm IDs swapped, the
     * DREQ's TID) so that the peer stops retrying.
     */
    private void drepUnknown(MadAgent agent, MadRecv r, CmDreq dreq) {
        cm.count(CmCounter.DREQ_UNKNOWN_CONN);
        CmDrep drep = new CmDrep().localCommId(dreq.remoteCommId()).remoteCommId(dreq.localCommId());
        cm.send.replyTo(agent, r, drep.encode(r.mad().tid()), CmCounter.DREP_SENT);
    }

    /** {@code cm_drep_handler}: TIMEWAIT. */
    private void onDrep(CmDrep drep) {
        synchronized (cm.lock) {
            CmId id = waiting(drep.remoteCommId(), IbCmState.DREQ_SENT);
            if (id == null) {
                return;
            }
            cm.cancelOutstanding(id);
            cm.enterTimewait(id);
            cm.count(CmCounter.DREP_RCVD);
            cm.deliver(id, new IbCmEvent(IbCmEventType.DREP_RECEIVED).privateData(drep.privateData()));
        }
    }

    /** The id of local comm ID {@code commId} if it waits in {@code state} for an answer; else null, counted. */
    private CmId waiting(int commId, IbCmState state) {
        CmId id = cm.byCommId.get(commId);
        if (id == null || id.destroyed || id.state != state) {
            cm.count(CmCounter.DROPPED_UNKNOWN_CONN);
            return null;
        }
        return id;
    }

    // ------------------------------------------------------------------ SIDR

    /** {@code cm_sidr_req_handler}: a new id in SIDR_REQ_RCVD for the listener, or SIDR_REP UNSUPPORTED. */
    private void onSidrReq(IbDevice dev, int port, MadAgent agent, MadRecv r, SidrReq req) {
        Gid from = r.sgid();
        // InfiniBand: no GRH inside the subnet; the sender is its SLID
        boolean lidRouted = from == null && dev.linkLayer(port) == LinkLayer.INFINIBAND;
        synchronized (cm.lock) {
            if (from == null && !lidRouted) {
                cm.count(CmCounter.DROPPED_NO_GRH);
                return;
            }
            for (CmId c : cm.ids) {
                if (c.state == IbCmState.SIDR_REQ_RCVD && c.remoteCommId == req.requestId()
                        && (lidRouted ? c.path.lidRouted() && c.madDlid == r.slid() : from.equals(c.path.dgid()))) {
                    cm.count(CmCounter.DUP_SIDR_REQ); // cm_insert_remote_sidr: being answered
                    return;
                }
            }
            CmId listener = cm.findListener(dev, req.serviceId());
            if (listener == null) {
                cm.count(CmCounter.SIDR_NO_LISTENER); // cm_reject_sidr_req(IB_SIDR_UNSUPPORTED)
                cm.send.sidrRepTo(agent, r, req.requestId(), req.serviceId(), SidrRep.UNSUPPORTED);
                return;
            }
            CmId conn = new CmId(cm, dev, listener.handler, listener.context);
            Gid local = r.dgid() != null ? r.dgid() : dev.queryGid(port, 0);
            conn.path = new IbCmPath(port, gidIndex(dev, port, local), local, from, lidRouted, 0, r.slid(), r.sl(),
                    0, 0, 0, 0, 0, 0);
            conn.madDlid = r.slid();
            conn.madSl = r.sl();
            conn.tid = r.mad().tid();
            conn.remoteCommId = req.requestId();
            conn.serviceId = req.serviceId();
            conn.state = IbCmState.SIDR_REQ_RCVD;
            cm.ids.add(conn);
            cm.count(CmCounter.SIDR_REQ_RCVD);
            cm.deliver(conn, new IbCmEvent(IbCmEventType.SIDR_REQ_RECEIVED).listenId(listener).path(conn.path)
                    .serviceId(req.serviceId()).privateData(req.privateData()));
        }
    }

    /** {@code cm_sidr_rep_handler}: the id goes IDLE; the event carries the status, QPN and Q_Key. */
    private void onSidrRep(SidrRep rep) {
        synchronized (cm.lock) {
            CmId id = waiting(rep.requestId(), IbCmState.SIDR_REQ_SENT);
            if (id == null) {
                return;
            }
            cm.cancelOutstanding(id);
            cm.count(CmCounter.SIDR_REP_RCVD);
            id.state = IbCmState.IDLE;
            cm.forget(id);
            cm.deliver(id, new IbCmEvent(IbCmEventType.SIDR_REP_RECEIVED).status(rep.status()).remoteQpn(rep.qpn())
                    .qkey(rep.qkey()).serviceId(rep.serviceId()).privateData(rep.privateData()));
        }
    }

    // ------------------------------------------------------------------ timeouts

    /** A send finished: a REQ, REP, DREQ or SIDR_REQ never answered times the exchange out ({@code cm_process_send_error}). */
    void sent(MadSend send, WcStatus status) {
        if (status == WcStatus.SUCCESS || status == WcStatus.WR_FLUSH_ERR || !(send.context() instanceof CmId id)) {
            return;
        }
        synchronized (cm.lock) {
            if (id.outstanding != send || id.destroyed) {
                return;
            }
            id.outstanding = null;
            cm.count(CmCounter.TIMEOUTS);
            IbCmEventType type;
            switch (id.state) {
                case SIDR_REQ_SENT -> {
                    id.state = IbCmState.IDLE;
                    cm.forget(id);
                    type = IbCmEventType.SIDR_REQ_ERROR;
                }
                case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD -> {
                    type = id.state == IbCmState.REQ_SENT || id.state == IbCmState.MRA_REQ_RCVD
                            ? IbCmEventType.REQ_ERROR : IbCmEventType.REP_ERROR;
                    cm.send.rejLocked(id, IbCmRejReason.TIMEOUT, null, null);
                }
                case DREQ_SENT -> {
                    cm.enterTimewait(id);
                    type = IbCmEventType.DREQ_ERROR;
                }
                default -> {
                    return;
                }
            }
            cm.deliver(id, new IbCmEvent(type).status(-Errno.ETIMEDOUT.value()));
        }
    }
}
