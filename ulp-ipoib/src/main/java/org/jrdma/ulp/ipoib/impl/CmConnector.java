package org.jrdma.ulp.ipoib.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmPath;
import org.jrdma.ib.cm.ib.IbCmReqParam;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ulp.ipoib.CmConnection;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * The active side of connected mode ({@code ipoib_cm_create_tx}, {@code ipoib_cm_tx_init}, {@code
 * ipoib_cm_rep_handler}, {@code ipoib_cm_tx_handler}): a unicast packet to a peer advertising {@code
 * IPOIB_FLAGS_RC} opens a connection (SA path, RC QP to INIT, REQ to {@code IPOIB_CM_IETF_ID | peer's UD QPN} with
 * the UD QPN and receive MTU as private data; on the REP: RTR, RTS, RTU) and waits for it. A REJ, a CM timeout or a
 * failed send closes the connection and sends the peer's packets by datagram for {@link CmOptions#fallbackMs()};
 * a DREQ closes it, and the next packet connects again. Used only on the interface's thread.
 */
final class CmConnector {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.ipoib");

    private final IpoibNetdev dev;
    private final IpoibCm cm;
    private final CmRings rings;
    private final CmOptions options;
    /** By the peer's QPN and GID (flags cleared). */
    private final Map<HwAddr, CmTx> byPeer = new ConcurrentHashMap<>();
    private final Map<Integer, CmTx> byQpn = new ConcurrentHashMap<>();
    /** Peers reached by datagram until the time (System.nanoTime) after a REJ or failure. */
    private final Map<HwAddr, Long> fallbackUntil = new ConcurrentHashMap<>();

    CmConnector(IpoibNetdev dev, IpoibCm cm, CmRings rings, CmOptions options) {
        this.dev = dev;
        this.cm = cm;
        this.rings = rings;
        this.options = options;
    }

    private static HwAddr key(HwAddr dst) {
        return new HwAddr(0, dst.qpn(), dst.gid());
    }

    /**
     * Sends over the peer's connection, opening it if needed ({@code ipoib_cm_send}, the packet waiting meanwhile);
     * false if the peer is to be reached by datagram.
     */
    boolean send(HwAddr dst, int ethertype, byte[] payload) {
        HwAddr k = key(dst);
        Long until = fallbackUntil.get(k);
        if (until != null) {
            if (until - System.nanoTime() > 0) {
                return false;
            }
            fallbackUntil.remove(k);
        }
        CmTx t = byPeer.get(k);
        if (t == null) {
            t = new CmTx(k);
            byPeer.put(k, t);
            resolve(t);
        }
        if (t.state == CmTx.State.UP) {
            post(t, ethertype, payload);
        } else if (t.queue.size() >= CmTx.MAX_QUEUE) {
            dev.counters().drop(Drop.TX_CM_QUEUE_FULL);
        } else {
            t.queue.add(new CmTx.Pending(ethertype, payload));
        }
        return true;
    }

    private void post(CmTx t, int ethertype, byte[] payload) {
        if (payload.length > t.mtu) {
            dev.counters().drop(Drop.TX_OVERSIZE); // Linux answers ICMP "fragmentation needed" as well
        } else if (!rings.canSend()) {
            dev.counters().drop(Drop.TX_RING_FULL);
        } else {
            try {
                rings.send(t.qp, ethertype, payload);
                t.packets++;
                dev.counters().rcSent(Encap.LEN + payload.length);
            } catch (RuntimeException e) {
                dev.counters().txErrors.increment();
            }
        }
    }

    /** The path the REQ takes: the path cache's record, else an SA query of its own. */
    private void resolve(CmTx t) {
        PathRecord rec = dev.pathRecord(t.peer.gid());
        if (rec != null) {
            connect(t, rec);
            return;
        }
        dev.sa().pathRecordGet(dev.ibDevice(), dev.port(), dev.gid(), t.peer.gid(), Paths.QUERY_TIMEOUT_MS)
                .whenComplete((r, err) -> cm.dispatch(() -> {
                    if (byPeer.get(t.peer) == t) {
                        if (err != null) {
                            fail(t, "no path: " + err);
                        } else {
                            connect(t, r);
                        }
                    }
                }));
    }

    /** {@code ipoib_cm_tx_init}: the RC QP to INIT, a CM id, the REQ. */
    private void connect(CmTx t, PathRecord rec) {
        try {
            t.qp = rings.createQp();
            byQpn.put(t.qp.qpNum(), t);
            t.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(dev.port()).accessFlags(0));
            t.id = cm.ibCm().createId(dev.ibDevice(), (id, ev) -> {
                cm.dispatch(() -> event(t, id, ev));
                return 0;
            }, t);
            IbCmPath path = new IbCmPath(dev.port(), 0, dev.gid(), t.peer.gid(), true, rec.slid, rec.dlid, rec.sl,
                    rec.mtu, rec.rate, rec.packetLifeTime, rec.hopLimit, rec.trafficClass, rec.flowLabel);
            // ipoib_cm_send_req's values: no retries (the draft warns against them), 4 responder resources
            t.id.sendReq(new IbCmReqParam().primaryPath(path).serviceId(IpoibCm.IETF_ID | t.peer.qpn())
                    .qpNum(t.qp.qpNum()).startingPsn(0).responderResources(4).remoteCmResponseTimeout(20)
                    .localCmResponseTimeout(20).retryCount(0).rnrRetryCount(0).maxCmRetries(15).srq(true)
                    .privateData(new CmData(dev.ud().qpn(), CmRings.CM_BUF_SIZE).encode()));
            t.state = CmTx.State.REQ_SENT;
        } catch (RuntimeException e) {
            fail(t, "REQ not sent: " + e);
        }
    }

    /** {@code ipoib_cm_tx_handler}. */
    private void event(CmTx t, IbCmId id, IbCmEvent ev) {
        if (byPeer.get(t.peer) != t || t.id != id) {
            return; // closed meanwhile
        }
        switch (ev.type()) {
            case REP_RECEIVED -> established(t, ev);
            case DREQ_RECEIVED -> {
                id.sendDrep(null);
                close(t, Drop.TX_CM_FLUSH);
            }
            case REJ_RECEIVED -> fail(t, "REJ reason " + ev.rejReason());
            case REQ_ERROR, REP_ERROR -> fail(t, ev.type() + " " + ev.status());
            case TIMEWAIT_EXIT, DREQ_ERROR -> close(t, Drop.TX_CM_FLUSH);
            default -> { }
        }
    }

    /** {@code ipoib_cm_rep_handler}: the peer's receive MTU, RTR, RTS, RTU, then what waited. */
    private void established(CmTx t, IbCmEvent rep) {
        CmData data = CmData.decode(rep.privateData());
        if (data == null || data.mtu() <= Encap.LEN) {
            fail(t, "REP without IPoIB private data");
            return;
        }
        try {
            t.qp.modify(t.id.initQpAttr(QpState.RTR));
            t.qp.modify(t.id.initQpAttr(QpState.RTS));
            t.id.sendRtu(null);
        } catch (RuntimeException e) {
            fail(t, "REP not taken: " + e);
            return;
        }
        t.mtu = Math.min(data.mtu(), CmRings.CM_BUF_SIZE) - Encap.LEN;
        t.remoteQpn = rep.remoteQpn();
        t.state = CmTx.State.UP;
        CmTx.Pending p;
        while ((p = t.queue.poll()) != null) {
            post(t, p.ethertype(), p.payload());
        }
    }

    /** A send completion: an error closes the connection ({@code ipoib_cm_handle_tx_wc}); the next packet reconnects. */
    void sent(WorkCompletion wc) {
        if (wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERR) {
            return;
        }
        dev.counters().txErrors.increment();
        CmTx t = byQpn.get(wc.qpNum());
        if (t != null && byPeer.get(t.peer) == t) {
            close(t, Drop.TX_CM_FLUSH);
        }
    }

    /** The connection failed: closed, the peer reached by datagram for a while, what waited sent that way. */
    private void fail(CmTx t, String why) {
        LOG.log(System.Logger.Level.INFO, dev.name() + ": connection to " + t.peer + " failed (" + why
                + "), datagram for " + options.fallbackMs() + " ms");
        fallbackUntil.put(t.peer, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.fallbackMs()));
        List<CmTx.Pending> waiting = List.copyOf(t.queue);
        t.queue.clear();
        close(t, Drop.TX_CM_FLUSH);
        for (CmTx.Pending p : waiting) {
            dev.paths().send(t.peer, p.ethertype(), p.payload());
        }
    }

    /** {@code ipoib_cm_destroy_tx}: the id destroyed (DREQ or REJ as its state needs), the QP gone. */
    private void close(CmTx t, Drop why) {
        byPeer.remove(t.peer, t);
        dev.counters().drop(why, t.queue.size());
        t.queue.clear();
        if (t.id != null) {
            t.id.close();
        }
        if (t.qp != null) {
            byQpn.remove(t.qp.qpNum());
            CmRings.destroyQp(t.qp);
        }
    }

    void closeAll(Drop why) {
        for (CmTx t : List.copyOf(byPeer.values())) {
            close(t, why);
        }
    }

    List<CmConnection> connections() {
        List<CmConnection> out = new ArrayList<>();
        byPeer.values().forEach(t -> out.add(t.view()));
        return out;
    }
}
