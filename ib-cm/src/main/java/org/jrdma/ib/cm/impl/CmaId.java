package org.jrdma.ib.cm.impl;

import java.net.InetSocketAddress;

import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.wire.CmReq;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.mad.MadSend;

/**
 * {@code struct rdma_id_private} with its IB CM connection ({@code struct cm_id_private}): the RDMA CM
 * id a consumer holds. Every field is guarded by the service's lock; the calls delegate to
 * {@link RdmaCmService}, which owns the state machine.
 */
final class CmaId implements RdmaCmId {
    final RdmaCmService cm;
    final RdmaCmEventHandler handler;
    final RdmaPortSpace ps;
    /** The listener whose CONNECT_REQUEST made this id, or null. */
    final CmaId listener;

    CmState state = CmState.IDLE;
    volatile Object context;

    // addressing
    InetSocketAddress local;
    InetSocketAddress remote;
    IbDevice device;
    int port;
    int sgidIndex;
    Gid sgid;
    Gid dgid;
    /** The id's port is InfiniBand: MADs and the QP are LID-routed with the path's DLID and SL. */
    boolean ib;
    /** InfiniBand: the path ({@code rdma_route.path_rec}, from the SA or the REQ). */
    int slid;
    int dlid;
    int sl;
    int pathMtu;
    int rate;
    int packetLife;
    int hopLimit;
    int trafficClass;
    int flowLabel;
    /** InfiniBand: where CM MADs go (the REQ's SLID and SL on the passive side; the path on the active side). */
    int madDlid;
    int madSl;
    /** The local ACK timeout this side put in its REQ (InfiniBand: from the path's packet life). */
    int ackTimeout;
    /** The UDP/TCP-style port this id holds in its port space (released on destroy), or 0. */
    int boundPort;

    QueuePair qp;

    // the IB CM connection
    int localCommId;
    int remoteCommId;
    long remoteCaGuid;
    int remoteQpn;
    /** The starting PSN this side put in its REQ or REP: the first PSN its receive queue expects. */
    int startingPsn;
    /** The TID of the exchange in progress (REQ/REP/RTU share the REQ's; DREQ/DREP the DREQ's). */
    long tid;
    long dreqTid;
    /** The REQ this passive id answers (path, PSN, timeouts), or null. */
    CmReq req;
    /** The consumer's connect or accept parameters. */
    RdmaConnParam param;
    /** The MAD being retransmitted until answered (REQ, REP or DREQ), or null. */
    MadSend outstanding;
    /** The last REP or RTU or DREP sent, to answer duplicates with. */
    MadSend lastReply;
    boolean removalDelivered;
    boolean destroyed;
    /** A UD id (UDP port space): the exchange is SIDR_REQ / SIDR_REP, not REQ / REP / RTU. */
    boolean sidr;
    /**
     * {@code IB_CM_MRA_REQ_SENT}: the CONNECT_REQUEST handler returned without accepting or rejecting, so
     * (as cma_ib_req_handler does with {@code CMA_CM_MRA_SETTING}, i.e. delayed) an MRA answers duplicate REQs.
     */
    boolean mraPending;
    /** {@code IB_CM_MRA_REQ_RCVD} / {@code IB_CM_MRA_REP_RCVD}: the peer MRAed our REQ or REP. */
    boolean mraRcvd;
    /** The service ID a SIDR_REQ asked for (echoed in the SIDR_REP). */
    long serviceId;

    CmaId(RdmaCmService cm, RdmaCmEventHandler handler, RdmaPortSpace ps, CmaId listener) {
        this.cm = cm;
        this.handler = handler;
        this.ps = ps;
        this.listener = listener;
    }

    @Override
    public void bindAddr(InetSocketAddress addr) {
        cm.bind(this, addr);
    }

    @Override
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        cm.resolveAddr(this, src, dst, timeoutMs);
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        cm.resolveRoute(this, timeoutMs);
    }

    @Override
    public void listen(int backlog) {
        cm.listen(this, backlog);
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        return cm.createQp(this, pd, attr);
    }

    @Override
    public void destroyQp() {
        cm.destroyQp(this);
    }

    @Override
    public void connect(RdmaConnParam param) {
        cm.connect(this, param);
    }

    @Override
    public void accept(RdmaConnParam param) {
        cm.accept(this, param);
    }

    @Override
    public void reject(byte[] privateData) {
        cm.reject(this, privateData);
    }

    @Override
    public void disconnect() {
        cm.disconnect(this);
    }

    @Override
    public void close() {
        cm.destroy(this);
    }

    @Override
    public IbDevice device() {
        synchronized (cm.lock) {
            return device;
        }
    }

    @Override
    public int portNum() {
        synchronized (cm.lock) {
            return port;
        }
    }

    @Override
    public QueuePair qp() {
        synchronized (cm.lock) {
            return qp;
        }
    }

    @Override
    public InetSocketAddress localAddr() {
        synchronized (cm.lock) {
            return local;
        }
    }

    @Override
    public InetSocketAddress remoteAddr() {
        synchronized (cm.lock) {
            return remote;
        }
    }

    @Override
    public RdmaPortSpace portSpace() {
        return ps;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    @Override
    public String toString() {
        return "rdma_cm_id[" + state + " " + local + " -> " + remote + (device != null ? " " + device.name() + "/" + port : "")
                + (localCommId != 0 ? String.format(" comm 0x%08x/0x%08x", localCommId, remoteCommId) : "") + "]";
    }
}
