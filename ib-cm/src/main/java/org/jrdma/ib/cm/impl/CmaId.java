package org.jrdma.ib.cm.impl;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.cm.RdmaCmEventHandler;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;

/**
 * {@code struct rdma_id_private}: the RDMA CM id a consumer holds. Its connection is an IB CM id
 * ({@link #ib}, {@code cm_id.ib}); its route a path record ({@link #route}, {@code rdma_route.path_rec}).
 * Every field is guarded by the RDMA CM's lock; the calls delegate to {@link RdmaCmService}, which owns
 * the state machine.
 */
final class CmaId implements RdmaCmId {
    final RdmaCmService cm;
    final RdmaCmEventHandler handler;
    final RdmaPortSpace ps;
    /** The listener whose CONNECT_REQUEST made this id, or null. */
    final CmaId listener;
    /** A UD id (UDP port space): the exchange is SIDR_REQ / SIDR_REP, not REQ / REP / RTU. */
    final boolean sidr;

    CmState state = CmState.IDLE;
    volatile Object context;
    boolean destroyed;

    // addressing (rdma_addr)
    InetSocketAddress local;
    InetSocketAddress remote;
    IbDevice device;
    int port;
    int sgidIndex;
    Gid sgid;
    Gid dgid;
    /** The id's port is InfiniBand: the route comes from the SA, MADs and the QP are LID-routed. */
    boolean lidRouted;
    /** The UDP/TCP-style port this id holds in its port space (released on destroy), or 0. */
    int boundPort;

    /** The route to the peer, once resolved (active) or from the REQ (passive). */
    IbCmPath route;
    QueuePair qp;
    /** The consumer's connect or accept parameters. */
    RdmaConnParam param;
    /** The IB CM id of the connection (or SIDR exchange), or null. */
    IbCmId ib;
    /** A listener's IB CM ids: one listening on each device ({@code cma_listen_on_all}). */
    final List<IbCmId> listenIds = new ArrayList<>();
    /** A listener's backlog ({@code rdma_listen}'s, capped as ucma caps it at {@code max_backlog}). */
    int backlog;
    /** A listener's CONNECT_REQUEST events not yet handled (queued or running): at most {@link #backlog}. */
    final java.util.concurrent.atomic.AtomicInteger pendingRequests = new java.util.concurrent.atomic.AtomicInteger();

    CmaId(RdmaCmService cm, RdmaCmEventHandler handler, RdmaPortSpace ps, CmaId listener) {
        this.cm = cm;
        this.handler = handler;
        this.ps = ps;
        this.listener = listener;
        this.sidr = ps == RdmaPortSpace.UDP;
    }

    @Override public void bindAddr(InetSocketAddress addr) { cm.bind(this, addr); }
    @Override public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) { cm.resolveAddr(this, src, dst, timeoutMs); }
    @Override public void resolveRoute(int timeoutMs) { cm.resolveRoute(this, timeoutMs); }
    @Override public void listen(int backlog) { cm.listen(this, backlog); }
    @Override public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) { return cm.createQp(this, pd, attr); }
    @Override public void destroyQp() { cm.destroyQp(this); }
    @Override public void connect(RdmaConnParam param) { cm.connect(this, param); }
    @Override public void accept(RdmaConnParam param) { cm.accept(this, param); }
    @Override public void reject(byte[] privateData) { cm.reject(this, privateData); }
    @Override public void disconnect() { cm.disconnect(this); }
    @Override public void close() { cm.destroy(this); }
    @Override public IbDevice device() { synchronized (cm.lock) { return device; } }
    @Override public int portNum() { synchronized (cm.lock) { return port; } }
    @Override public QueuePair qp() { synchronized (cm.lock) { return qp; } }
    @Override public InetSocketAddress localAddr() { synchronized (cm.lock) { return local; } }
    @Override public InetSocketAddress remoteAddr() { synchronized (cm.lock) { return remote; } }
    @Override public RdmaPortSpace portSpace() { return ps; }
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }

    @Override
    public String toString() {
        return "rdma_cm_id[" + state + " " + local + " -> " + remote + (device != null ? " " + device.name() + "/" + port : "")
                + (ib != null ? " " + ib : "") + "]";
    }
}
