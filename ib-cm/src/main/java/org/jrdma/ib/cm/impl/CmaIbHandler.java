package org.jrdma.ib.cm.impl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmEventType;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.addr.RdmaDevAddr;
import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmEventType;
import org.jrdma.ib.cm.ib.IbCmHandler;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.wire.CmaHeader;
import org.jrdma.ib.cm.wire.SidrRep;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpState;

/**
 * The RDMA CM's handler of IB CM events ({@code cma_ib_handler}, {@code cma_ib_req_handler},
 * {@code cma_sidr_rep_handler}): runs on the IB CM's thread, moves the RDMA CM id on under the RDMA CM's
 * lock and hands the RDMA CM event to the "rdma-cm" thread. For a request it makes the new RDMA CM id, or
 * answers non-zero so that the IB CM rejects the request.
 */
final class CmaIbHandler implements IbCmHandler {
    private final RdmaCmService cm;

    CmaIbHandler(RdmaCmService cm) {
        this.cm = cm;
    }

    @Override
    public int handle(IbCmId ib, IbCmEvent ev) {
        switch (ev.type()) {
            case REQ_RECEIVED, SIDR_REQ_RECEIVED -> {
                return onRequest(ib, ev);
            }
            default -> {
            }
        }
        if (!(ib.context() instanceof CmaId id)) {
            return 0;
        }
        RdmaCmEvent out;
        synchronized (cm.lock) {
            if (id.destroyed || id.ib != ib) {
                return 0;
            }
            out = switch (ev.type()) {
                case REP_RECEIVED -> onRep(id, ev);
                case RTU_RECEIVED -> id.state == CmState.REP_SENT ? established(id) : null;
                case REJ_RECEIVED -> onRej(id, ev);
                case REQ_ERROR, REP_ERROR, SIDR_REQ_ERROR -> unreachable(id);
                case DREQ_RECEIVED -> onDreq(id);
                case DREP_RECEIVED, DREQ_ERROR -> onDrep(id);
                case TIMEWAIT_EXIT -> id.state == CmState.TIMEWAIT ? event(RdmaCmEventType.TIMEWAIT_EXIT, id, 0, null) : null;
                case SIDR_REP_RECEIVED -> onSidrRep(id, ev);
                default -> null; // MRA_RECEIVED: the IB CM waits longer, nothing to tell
            };
        }
        if (out != null) {
            cm.events.dispatch(id, out);
        }
        return 0;
    }

    private static RdmaCmEvent event(RdmaCmEventType type, CmaId id, int status, RdmaConnParam param) {
        return new RdmaCmEvent(type, id, null, status, param);
    }

    // ------------------------------------------------------------------ requests

    /**
     * {@code cma_ib_req_handler} / {@code cma_ib_sidr_req_handler}: a new id for the listener whose address the
     * CMA header names; a bad header, or no listener for the address, answers non-zero (the IB CM rejects:
     * CONSUMER_DEFINED, or SIDR_REP REJECT).
     */
    private int onRequest(IbCmId ib, IbCmEvent ev) {
        boolean sidr = ev.type() == IbCmEventType.SIDR_REQ_RECEIVED;
        CmaId listener = (CmaId) ev.listenId().context();
        CmaId conn;
        synchronized (cm.lock) {
            CmaHeader hdr;
            try {
                hdr = CmaHeader.decode(ev.privateData());
            } catch (IllegalArgumentException e) {
                // cma_save_ip_info: bad cma_version / IP version
                cm.counters.count(sidr ? CmCounter.SIDR_BAD_CMA_HEADER : CmCounter.REJ_BAD_CMA_HEADER);
                return -1;
            }
            IbDevice dev = ib.device();
            CmaRoute.Endpoint here = localOn(dev, hdr.dstAddr());
            if (here == null || listener.destroyed || listener.sidr != sidr || !listensOn(listener, hdr.dstAddr(), dev)) {
                // a listener on the service ID, but none for this address
                cm.counters.count(sidr ? CmCounter.SIDR_NO_LISTENER : CmCounter.REJ_NO_LISTENER);
                return -1;
            }
            if (!sidr && listener.pendingRequests.get() >= listener.backlog) {
                // ucma_event_handler: the listener's backlog is used up -> the new id goes, the REQ is rejected
                cm.counters.count(CmCounter.REJ_BACKLOG);
                return -1;
            }
            conn = new CmaId(cm, listener.handler, listener.ps, listener);
            conn.context = listener.context;
            CmaResolver.at(conn, here);
            conn.local = new InetSocketAddress(hdr.dstAddr(), listener.local.getPort());
            conn.remote = new InetSocketAddress(hdr.srcAddr(), hdr.port());
            conn.route = ev.path();
            // InfiniBand: a SIDR_REQ inside the subnet has no GRH; the sender's GID is the CMA header's source
            conn.dgid = ev.path().dgid() != null ? ev.path().dgid() : Gid.of(hdr.srcAddr());
            conn.ib = ib;
            conn.state = CmState.REQ_RCVD;
            ib.context(conn);
            cm.ids.add(conn);
        }
        RdmaConnParam p = new RdmaConnParam().privateData(CmaHeader.userData(ev.privateData()));
        if (!sidr) {
            p.responderResources(ev.responderResources()).initiatorDepth(ev.initiatorDepth())
                    .flowControl(ev.flowControl() ? 1 : 0).retryCount(ev.retryCount())
                    .rnrRetryCount(ev.rnrRetryCount()).srq(ev.srq()).qpNum(ev.remoteQpn());
        }
        if (!sidr) {
            listener.pendingRequests.incrementAndGet(); // CmaEvents gives it back once the handler has run
        }
        cm.events.dispatch(conn, new RdmaCmEvent(RdmaCmEventType.CONNECT_REQUEST, conn, listener, 0, p));
        return 0;
    }

    /**
     * Where the CMA header's destination address is on {@code dev} ({@code cma_ib_id_from_event} with
     * {@code ib_get_net_dev_by_params}): an interface's address (IPoIB) on one of the device's ports, else a GID
     * of the device's (RoCE addresses, GIDs as IPv6); null if neither.
     */
    private CmaRoute.Endpoint localOn(IbDevice dev, InetAddress dst) {
        RdmaDevAddr netdev = cm.addrs.translate(dst);
        if (netdev != null) {
            CmaRoute.Endpoint ep = CmaAddrResolvers.endpoint(netdev);
            return ep != null && ep.device() == dev ? ep : null;
        }
        return CmaRoute.find(List.of(dev), dst);
    }

    /** Whether {@code l} takes requests to {@code dst} on {@code dev}: a wildcard listener, or one bound there. */
    private static boolean listensOn(CmaId l, InetAddress dst, IbDevice dev) {
        InetAddress a = l.local.getAddress();
        return a == null || a.isAnyLocalAddress() || (a.equals(dst) && (l.device == null || l.device == dev));
    }

    // ------------------------------------------------------------------ connection

    /** REP_RECEIVED: the QP to RTR and RTS with the IB CM's attributes, then the RTU; a QP that fails rejects the REP. */
    private RdmaCmEvent onRep(CmaId id, IbCmEvent ev) {
        if (id.state != CmState.REQ_SENT) {
            return null;
        }
        try {
            id.qp.modify(id.ib.initQpAttr(QpState.RTR));
            id.qp.modify(id.ib.initQpAttr(QpState.RTS));
        } catch (RuntimeException e) {
            id.ib.sendRej(IbCmRejReason.CONSUMER_DEFINED, null, null);
            id.state = CmState.ERROR;
            return event(RdmaCmEventType.CONNECT_ERROR, id, -Errno.EINVAL.value(), null);
        }
        id.ib.sendRtu(null);
        id.state = CmState.ESTABLISHED;
        return event(RdmaCmEventType.ESTABLISHED, id, 0, new RdmaConnParam().privateData(ev.privateData())
                .responderResources(ev.responderResources()).initiatorDepth(ev.initiatorDepth())
                .flowControl(ev.flowControl() ? 1 : 0).rnrRetryCount(ev.rnrRetryCount()).srq(ev.srq())
                .qpNum(ev.remoteQpn()));
    }

    private static RdmaCmEvent established(CmaId id) {
        id.state = CmState.ESTABLISHED;
        return event(RdmaCmEventType.ESTABLISHED, id, 0, null);
    }

    /** REJ_RECEIVED: a connection is DISCONNECTED, a REQ rejected for a timeout UNREACHABLE, else REJECTED. */
    private static RdmaCmEvent onRej(CmaId id, IbCmEvent ev) {
        CmState was = id.state;
        if (was != CmState.REQ_SENT && was != CmState.REP_SENT && was != CmState.ESTABLISHED) {
            return null;
        }
        RdmaCmService.toError(id.qp);
        id.state = CmState.ERROR;
        if (was == CmState.ESTABLISHED) {
            return event(RdmaCmEventType.DISCONNECTED, id, 0, null);
        }
        if (ev.rejReason() == IbCmRejReason.TIMEOUT.code()) {
            return event(RdmaCmEventType.UNREACHABLE, id, -Errno.ETIMEDOUT.value(), null);
        }
        return event(RdmaCmEventType.REJECTED, id, ev.rejReason(), new RdmaConnParam().privateData(ev.privateData()));
    }

    /** REQ_ERROR, REP_ERROR, SIDR_REQ_ERROR: the peer never answered. */
    private static RdmaCmEvent unreachable(CmaId id) {
        if (id.state != CmState.REQ_SENT && id.state != CmState.REP_SENT) {
            return null;
        }
        id.state = CmState.ERROR;
        RdmaCmService.toError(id.qp);
        return event(RdmaCmEventType.UNREACHABLE, id, -Errno.ETIMEDOUT.value(), null);
    }

    /** DREQ_RECEIVED: DISCONNECTED; the consumer's rdma_disconnect sends the DREP. */
    private static RdmaCmEvent onDreq(CmaId id) {
        if (id.state != CmState.ESTABLISHED && id.state != CmState.REP_SENT) {
            return null;
        }
        id.state = CmState.DREQ_RCVD;
        return event(RdmaCmEventType.DISCONNECTED, id, 0, null);
    }

    /**
     * DREP_RECEIVED or DREQ_ERROR: TIMEWAIT and DISCONNECTED. Also for a connection the IB CM disconnected
     * itself (a new REQ from the peer's QP showed the peer had lost it).
     */
    private static RdmaCmEvent onDrep(CmaId id) {
        if (id.state == CmState.ESTABLISHED) {
            RdmaCmService.toError(id.qp);
        } else if (id.state != CmState.DREQ_SENT) {
            return null;
        }
        id.state = CmState.TIMEWAIT;
        return event(RdmaCmEventType.DISCONNECTED, id, 0, null);
    }

    /** {@code cma_sidr_rep_handler}: ESTABLISHED with ud.qp_num, ud.qkey and ud.ah_attr, or UNREACHABLE. */
    private static RdmaCmEvent onSidrRep(CmaId id, IbCmEvent ev) {
        if (id.state != CmState.REQ_SENT) {
            return null;
        }
        if (ev.status() != SidrRep.SUCCESS) {
            id.state = CmState.ERROR;
            return event(RdmaCmEventType.UNREACHABLE, id, ev.status(), new RdmaConnParam().privateData(ev.privateData()));
        }
        if (ev.qkey() != RdmaCmService.RDMA_UDP_QKEY) {
            id.state = CmState.ERROR; // cma_set_qkey: the UDP port space uses RDMA_UDP_QKEY only
            return event(RdmaCmEventType.ADDR_ERROR, id, -Errno.EINVAL.value(), null);
        }
        id.state = CmState.ESTABLISHED;
        return event(RdmaCmEventType.ESTABLISHED, id, 0, new RdmaConnParam().privateData(ev.privateData())
                .qpNum(ev.remoteQpn()).qkey(ev.qkey()).ahAttr(id.route.ahAttr()));
    }
}
