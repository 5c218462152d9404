package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.cm.ib.IbCmEvent;
import org.jrdma.ib.cm.ib.IbCmEventType;
import org.jrdma.ib.cm.ib.IbCmId;
import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.cm.ib.IbCmRepParam;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ulp.ipoib.CmConnection;
import org.jrdma.ulp.ipoib.impl.Counters.Drop;

/**
 * Connected mode of one interface (RFC 4755, Linux's {@code ipoib_cm.c} with {@code ipoib_cm_dev_priv}), alive
 * while the interface is in connected mode: the listener on {@code IPOIB_CM_IETF_ID | UD QPN}, the passive
 * connections ({@link CmRx}, receiving on the SRQ of {@link CmRings}), the active ones ({@link CmConnector}), the
 * completions of all of them, and the reaper of idle passive connections. IB CM events arrive on the CM's thread
 * and are handed to the interface's thread, where all of this state lives.
 */
final class IpoibCm implements UdQp.Handler {
    private static final System.Logger LOG = System.getLogger("org.jrdma.ulp.ipoib");
    /** {@code IPOIB_CM_IETF_ID}: the service ID prefix of RFC 4755 (the UD QPN is in the low 24 bits). */
    static final long IETF_ID = 0x1000000000000000L;

    private final IpoibNetdev dev;
    private final IbCm ibCm;
    private final CmOptions options;
    private final CmRings rings;
    private final CmConnector active;
    private final IbCmId listener;
    private final Map<IbCmId, CmRx> rxById = new ConcurrentHashMap<>();
    private final Map<Integer, CmRx> rxByQpn = new ConcurrentHashMap<>();
    private final AtomicBoolean pollQueued = new AtomicBoolean();
    private final Future<?> reaper;
    private boolean stopped;

    /** {@code ipoib_cm_dev_init} + {@code ipoib_cm_dev_open}: the rings, then the listener. */
    IpoibCm(IpoibNetdev dev, IbCm ibCm, CmOptions options, QueueSizes sizes) {
        this.dev = dev;
        this.ibCm = ibCm;
        this.options = options;
        this.rings = new CmRings(dev.ibDevice(), dev.client(), dev.ud().pd, sizes, cq -> wake());
        this.active = new CmConnector(dev, this, rings, options);
        IbCmId l = null;
        try {
            l = ibCm.createId(dev.ibDevice(), this::listenEvent, dev);
            l.listen(IETF_ID | dev.ud().qpn(), 0);
        } catch (RuntimeException e) {
            if (l != null) {
                l.close();
            }
            rings.destroy();
            throw e;
        }
        listener = l;
        long period = Math.max(1, options.rxTimeoutMs() / 2);
        reaper = dev.scheduleAtFixedRate(this::reapIdle, period);
        wake();
    }

    IbCm ibCm() {
        return ibCm;
    }

    CmConnector active() {
        return active;
    }

    /** The completion handler only wakes the interface's thread, as the UD side does. */
    private void wake() {
        if (pollQueued.compareAndSet(false, true)) {
            dev.run(() -> {
                pollQueued.set(false);
                if (!stopped) {
                    rings.poll(this);
                }
            });
        }
    }

    /** Runs an IB CM event on the interface's thread; false once it is gone. */
    boolean dispatch(Runnable r) {
        return dev.run(() -> {
            if (!stopped) {
                r.run();
            }
        });
    }

    // ---- passive side (ipoib_cm_rx_handler) ----

    private int listenEvent(IbCmId id, IbCmEvent ev) {
        if (ev.type() == IbCmEventType.REQ_RECEIVED) {
            return dispatch(() -> accept(id, ev)) ? 0 : -1; // -1: the CM rejects the REQ
        }
        dispatch(() -> rxEvent(id, ev));
        return 0;
    }

    /** {@code ipoib_cm_req_handler}: an RC QP on the SRQ, INIT, RTR with a random PSN, RTS, then the REP. */
    private void accept(IbCmId id, IbCmEvent req) {
        CmData data = CmData.decode(req.privateData());
        if (data == null || data.mtu() <= Encap.LEN || req.path() == null) {
            // no ipoib_cm_data (the CM pads private data with zeros): not an IPoIB peer
            id.sendRej(IbCmRejReason.CONSUMER_DEFINED, null, null);
            id.close();
            return;
        }
        QueuePair qp = null;
        try {
            qp = rings.createQp();
            int psn = ThreadLocalRandom.current().nextInt() & 0xffffff;
            qp.modify(id.initQpAttr(QpState.INIT));
            qp.modify(id.initQpAttr(QpState.RTR).rqPsn(psn));
            qp.modify(id.initQpAttr(QpState.RTS));
            CmRx rx = new CmRx(id, qp, new HwAddr(0, data.qpn(), req.path().dgid()), req.remoteQpn());
            rxById.put(id, rx);
            rxByQpn.put(qp.qpNum(), rx);
            id.sendRep(new IbCmRepParam().qpNum(qp.qpNum()).startingPsn(psn).rnrRetryCount(req.rnrRetryCount())
                    .srq(true).privateData(new CmData(dev.ud().qpn(), CmRings.CM_BUF_SIZE).encode()));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, dev.name() + ": REQ from qpn 0x" + Integer.toHexString(data.qpn())
                    + " not accepted: " + e);
            CmRx rx = rxById.get(id);
            if (rx != null) {
                closeRx(rx);
            } else {
                id.close();
                if (qp != null) {
                    CmRings.destroyQp(qp);
                }
            }
        }
    }

    private void rxEvent(IbCmId id, IbCmEvent ev) {
        CmRx rx = rxById.get(id);
        if (rx == null) {
            return;
        }
        switch (ev.type()) {
            case RTU_RECEIVED, USER_ESTABLISHED -> rx.up = true;
            case DREQ_RECEIVED -> {
                id.sendDrep(null);
                closeRx(rx);
            }
            case REJ_RECEIVED, REP_ERROR, TIMEWAIT_EXIT, DREQ_ERROR -> closeRx(rx);
            default -> { }
        }
    }

    /** The connection's QP gone and its id destroyed (which sends the DREQ when it is still established). */
    private void closeRx(CmRx rx) {
        rxById.remove(rx.id);
        rxByQpn.remove(rx.qp.qpNum());
        rx.id.close();
        CmRings.destroyQp(rx.qp);
    }

    /** {@code ipoib_cm_stale_task}: passive connections idle for the timeout are closed (DREQ to the peer). */
    private void reapIdle() {
        long limit = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(options.rxTimeoutMs());
        for (CmRx rx : List.copyOf(rxById.values())) {
            if (rx.lastActiveNanos - limit < 0) {
                LOG.log(System.Logger.Level.DEBUG, dev.name() + ": idle connection from " + rx.peer + " reaped");
                closeRx(rx);
            }
        }
    }

    // ---- completions (ipoib_cm_handle_rx_wc, ipoib_cm_handle_tx_wc) ----

    @Override
    public void received(int slot, WorkCompletion wc, ByteBuffer buf, int off) {
        if (wc.status() == WcStatus.WR_FLUSH_ERR) {
            return; // the SRQ is going away
        }
        try {
            CmRx rx = rxByQpn.get(wc.qpNum());
            if (wc.status() != WcStatus.SUCCESS) {
                dev.counters().rxErrors.increment();
            } else {
                if (rx != null) {
                    rx.lastActiveNanos = System.nanoTime();
                    rx.packets++;
                    rx.up = true;
                }
                dev.counters().rcReceived(wc.byteLen());
                dev.rxPath().frame(buf, off, wc.byteLen(), false);
            }
        } finally {
            rings.postRecv(slot);
        }
    }

    @Override
    public void sent(WorkCompletion wc) {
        active.sent(wc);
    }

    // ---- teardown and views ----

    /** Every active connection closed ({@code ipoib_flush_paths} as carrier loss does); waiting packets dropped. */
    void flushActive(Drop why) {
        active.closeAll(why);
    }

    /**
     * {@code ipoib_cm_dev_stop} + {@code ipoib_cm_dev_cleanup}: the listener, every connection (DREQ to the peers),
     * then the SRQ, CQ and buffers. Waiting packets are dropped as {@code why}.
     */
    void stop(Drop why) {
        if (stopped) {
            return;
        }
        reaper.cancel(false);
        listener.close();
        active.closeAll(why);
        for (CmRx rx : List.copyOf(rxById.values())) {
            closeRx(rx);
        }
        rings.poll(this); // send slots of the flushed QPs back, nothing else to do with them
        stopped = true;
        rings.destroy();
    }

    List<CmConnection> connections() {
        List<CmConnection> out = new ArrayList<>(active.connections());
        rxById.values().forEach(rx -> out.add(rx.view()));
        return out;
    }
}
