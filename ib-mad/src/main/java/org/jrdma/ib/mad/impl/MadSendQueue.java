package org.jrdma.ib.mad.impl;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadSend;

/**
 * The send side of {@code mad.c} for one port: {@code ib_post_send_mad} into the special QPs' send
 * buffers (or their overflow queue, {@code mad_queue}'s wait list, when all are busy), {@code
 * ib_modify_mad} and {@code ib_cancel_mad}, the response timer with its retries ({@code timeout_sends}),
 * {@code ib_mad_send_done}, and the address handles the sends hold. RMPP transfers go through {@link
 * MadRmpp}.
 *
 * <p>Every method named {@code ...Locked} runs under the port's monitor, as does the rest of the port;
 * {@link #send}, {@link #modify} and the timers take it themselves.
 */
final class MadSendQueue {
    private final MadPort port;
    /** The address handles of sends not released yet (destroyed at teardown if still here). */
    private final Set<AddressHandle> ahs = new HashSet<>();

    MadSendQueue(MadPort port) {
        this.port = port;
    }

    // ------------------------------------------------------------------ ib_post_send_mad

    /** {@code ib_post_send_mad}. */
    void send(MadAgentImpl agent, MadSend send) {
        if (send == null || send.mad() == null) {
            throw new VerbsException(Errno.EINVAL, "send: no MAD");
        }
        if (send.ah() == null) {
            throw new VerbsException(Errno.EINVAL, "send: no destination (ah)");
        }
        if (send.timeoutMs() < 0 || send.retries() < 0) {
            throw new VerbsException(Errno.EINVAL, "send: timeout " + send.timeoutMs() + " ms, retries "
                    + send.retries());
        }
        synchronized (port) {
            if (!agent.open || port.isDead()) {
                throw new VerbsException(Errno.ENODEV, "send: agent " + agent + " is closed"
                        + (port.isDead() ? " (the device is gone)" : ""));
            }
            if (agent.outstanding.containsKey(send)) {
                throw new VerbsException(Errno.EINVAL, "send: " + send + " is still outstanding");
            }
            Mad m = send.mad();
            if (agent.qp.type == QpType.SMI && m.mgmtClass() == Mad.CLASS_SUBN_DIRECTED_ROUTE && outgoingDrSmp(m)) {
                MadSendWr wr = new MadSendWr(agent, send, null, agent.qp);
                agent.outstanding.put(send, wr);
                deliverLocalLocked(wr);
                return;
            }
            boolean rmpp = MadRmpp.checkSend(agent.qp, send);
            AddressHandle ah = port.pd().createAh(send.ah().copy().portNum(port.port));
            ahs.add(ah);
            MadSendWr wr = new MadSendWr(agent, send, ah, agent.qp);
            if (rmpp) {
                MadRmpp.initSend(wr);
            }
            agent.outstanding.put(send, wr);
            try {
                postLocked(wr);
            } catch (RuntimeException e) {
                agent.outstanding.remove(send);
                releaseAh(wr);
                throw e;
            }
        }
    }

    /**
     * {@code handle_outgoing_dr_smp}: the SMI rules first (EINVAL if they refuse); true when the SMP stays
     * on this node and never hits the wire.
     */
    private boolean outgoingDrSmp(Mad m) {
        if (Smi.send(m, port.port) == Smi.Action.DISCARD) {
            port.counters.inc(MadCounters.DROPPED_SMI);
            throw new VerbsException(Errno.EINVAL, String.format("send: directed-route SMP discarded by the SMI"
                    + " (hop pointer %d, hop count %d, initial path[1] %d, port %d)", m.u8(Smi.HOP_PTR),
                    m.u8(Smi.HOP_CNT), m.u8(Smi.INITIAL_PATH + 1), port.port));
        }
        return Smi.isLocal(m);
    }

    /**
     * A directed-route SMP for this very port (hop count 0): as {@code handle_outgoing_dr_smp} hands it to
     * the local SMA, it goes straight to this port's dispatch on the MAD thread, and the send is done as if
     * it had been transmitted.
     */
    private void deliverLocalLocked(MadSendWr wr) {
        port.counters.inc(MadCounters.SENT);
        wr.inflight++;
        byte[] copy = Arrays.copyOf(wr.send.mad().bytes(), Mad.SIZE);
        MadSource src = MadSource.local(port.device.queryPort(port.port).lid(), wr.send.pkeyIndex());
        port.layer.execute(() -> {
            synchronized (port) {
                if (port.isDead()) {
                    return;
                }
                wr.inflight--;
                sentLocked(wr, WcStatus.SUCCESS);
                port.counters.inc(MadCounters.RCVD);
                port.dispatchLocked(wr.qp, copy, src);
            }
        });
    }

    /** Posts a send (a local SMP, an RMPP window, or one MAD) into a free send buffer, or queues it. */
    void postLocked(MadSendWr wr) {
        if (wr.ah == null) {
            deliverLocalLocked(wr);
        } else if (wr.rmpp != null) {
            port.rmpp.resendWindowLocked(wr);
        } else {
            postBytesLocked(wr, wr.send.mad().bytes());
        }
    }

    /** One MAD (or RMPP segment) into a free send buffer, or onto the overflow queue until one is free. */
    void postBytesLocked(MadSendWr wr, byte[] bytes) {
        MadPort.QpInfo q = wr.qp;
        Integer slot = q.freeSlots.poll();
        if (slot == null) {
            wr.queued = true;
            wr.queuedBytes.add(bytes);
            q.overflow.add(wr);
            port.counters.inc(MadCounters.SEND_QUEUED);
            return;
        }
        int off = slot * Mad.SIZE;
        q.sendBuf.put(off, bytes, 0, Mad.SIZE);
        SendWr swr = new SendWr().wrId(q.wrId(true, slot)).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(q.sendMr.iova() + off, Mad.SIZE, q.sendMr.lkey()))
                .ud(wr.ah, wr.send.remoteQpn(), wr.send.remoteQkey()).pkeyIndex(wr.send.pkeyIndex());
        q.sendSlots[slot] = wr;
        wr.inflight++;
        try {
            q.qp.postSend(swr);
        } catch (RuntimeException e) {
            wr.inflight--;
            q.sendSlots[slot] = null;
            q.freeSlots.push(slot);
            throw e;
        }
        port.counters.inc(MadCounters.SENT);
    }

    /**
     * A MAD of the layer itself (an RMPP ACK, an unmatched Get/Set's answer) back to where a receive came
     * from; {@code counter} (if any) is counted once the address is made. Failures are logged only.
     */
    void postReplyLocked(MadPort.QpInfo q, Mad m, MadSource src, String counter) {
        AhAttr av = src.replyAh(port.port, port.gidIndex(src.dgid()));
        MadSend send = new MadSend(m).ah(av).remoteQpn(src.srcQp()).remoteQkey(q.qkey()).pkeyIndex(src.pkeyIndex());
        try {
            AddressHandle ah = port.pd().createAh(av);
            ahs.add(ah);
            MadSendWr wr = new MadSendWr(null, send, ah, q);
            if (counter != null) {
                port.counters.inc(counter);
            }
            try {
                postLocked(wr);
            } catch (RuntimeException e) {
                releaseAh(wr);
                throw e;
            }
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": could not send " + m, e);
        }
    }

    // ------------------------------------------------------------------ ib_modify_mad, timeouts

    /** {@code ib_modify_mad}; 0 cancels ({@code ib_cancel_mad}). */
    boolean modify(MadAgentImpl agent, MadSend send, int timeoutMs) {
        synchronized (port) {
            MadSendWr wr = agent.outstanding.get(send);
            if (wr == null || wr.done) {
                return false;
            }
            if (timeoutMs == 0) {
                completeLocked(wr, WcStatus.WR_FLUSH_ERR);
                return true;
            }
            wr.timeoutMs = timeoutMs;
            send.timeoutMs(timeoutMs);
            if (wr.timer != null) {
                startTimerLocked(wr);
            }
            return true;
        }
    }

    /** (Re)starts the response timer of {@code wr}: an earlier one that fires anyway does nothing. */
    void startTimerLocked(MadSendWr wr) {
        wr.cancelTimer();
        int gen = wr.timerGen;
        wr.timer = port.layer.schedule(() -> timeout(wr, gen), wr.timeoutMs);
    }

    /** {@code timeout_sends}: resend, or end with RESP_TIMEOUT_ERR once the retries are used up. */
    private void timeout(MadSendWr wr, int gen) {
        synchronized (port) {
            if (port.isDead() || wr.done || gen != wr.timerGen || wr.responded) {
                return;
            }
            wr.timer = null;
            if (wr.inflight > 0) {
                return; // the send completion restarts it
            }
            if (wr.retriesLeft <= 0) {
                port.counters.inc(MadCounters.TIMEOUTS);
                completeLocked(wr, WcStatus.RESP_TIMEOUT_ERR);
                return;
            }
            wr.retriesLeft--;
            port.counters.inc(MadCounters.RETRIES);
            try {
                postLocked(wr);
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.WARNING, wr.qp + ": resend failed", e);
                completeLocked(wr, WcStatus.GENERAL_ERR);
            }
        }
    }

    // ------------------------------------------------------------------ completion

    /**
     * What a send completion does to its send ({@code ib_mad_send_done}), decided in this order; AH and
     * completion wait until no work request of the send is in flight any more.
     */
    private enum Sent {
        /** Already ended (cancelled, flushed, timed out): only its AH goes. */
        ENDED,
        /** The work request failed: the send ends with that status. */
        FAILED,
        /** Nothing (more) to wait for: the send is done. */
        DONE,
        /** Sent, the response not in yet: the response timer starts (if not already running). */
        WAIT_RESPONSE;

        static Sent of(MadSendWr wr, WcStatus status) {
            if (wr.done) {
                return ENDED;
            }
            if (status != WcStatus.SUCCESS) {
                return FAILED;
            }
            return !wr.expectsResponse() || wr.responded ? DONE : WAIT_RESPONSE;
        }
    }

    /** {@code ib_mad_send_done}: a send buffer is free again; queued sends take it. */
    void sendDoneLocked(MadPort.QpInfo q, int slot, WcStatus status) {
        MadSendWr wr = q.sendSlots[slot];
        q.sendSlots[slot] = null;
        q.freeSlots.push(slot);
        if (wr != null) {
            wr.inflight--;
            sentLocked(wr, status);
        }
        while (!q.freeSlots.isEmpty() && !q.overflow.isEmpty()) {
            MadSendWr next = q.overflow.poll();
            byte[] bytes = next.queuedBytes.poll();
            next.queued = !next.queuedBytes.isEmpty();
            try {
                postBytesLocked(next, bytes == null ? next.send.mad().bytes() : bytes);
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": queued send failed", e);
                completeLocked(next, WcStatus.GENERAL_ERR);
            }
        }
    }

    /** One work request of {@code wr} completed (or a local SMP was handed over) with {@code status}. */
    private void sentLocked(MadSendWr wr, WcStatus status) {
        boolean idle = wr.inflight == 0;
        switch (Sent.of(wr, status)) {
            case ENDED -> {
                if (idle) {
                    releaseAh(wr);
                }
            }
            case FAILED -> {
                if (status != WcStatus.WR_FLUSH_ERR) {
                    port.counters.inc(MadCounters.SEND_ERRORS);
                }
                completeLocked(wr, status);
            }
            case DONE -> {
                if (idle) {
                    completeLocked(wr, WcStatus.SUCCESS);
                }
            }
            case WAIT_RESPONSE -> {
                if (idle && wr.timer == null) {
                    startTimerLocked(wr);
                }
            }
        }
    }

    /** The response (or the last RMPP ACK) is in: the send is done once its last work request completes. */
    void respondedLocked(MadSendWr wr) {
        wr.responded = true;
        wr.cancelTimer();
        if (wr.inflight == 0) {
            completeLocked(wr, WcStatus.SUCCESS);
        }
    }

    /** {@code ib_find_send_mad}: the agent's request waiting for this response. */
    static MadSendWr findRequest(MadAgentImpl a, long tid, int mgmtClass) {
        for (MadSendWr wr : a.outstanding.values()) {
            if (wr.tid == tid && wr.mgmtClass == mgmtClass && wr.expectsResponse() && !wr.done && !wr.responded) {
                return wr;
            }
        }
        return null;
    }

    /** The send is done: its agent hears {@code status} (queued on the MAD thread). */
    void completeLocked(MadSendWr wr, WcStatus status) {
        endLocked(wr);
        if (wr.agent != null) {
            wr.agent.outstanding.remove(wr.send);
            wr.agent.sendDoneCallback(wr.send, status);
        }
    }

    /** Ends the send without a callback (the caller makes it): timer, overflow queue, AH. */
    void endLocked(MadSendWr wr) {
        wr.done = true;
        wr.cancelTimer();
        if (wr.queued) {
            wr.qp.overflow.removeIf(x -> x == wr);
            wr.queuedBytes.clear();
            wr.queued = false;
        }
        if (wr.inflight == 0) {
            releaseAh(wr);
        }
    }

    private void releaseAh(MadSendWr wr) {
        if (ahs.remove(wr.ah)) {
            port.quietly("destroy AH", wr.ah::destroy);
        }
    }

    /** Port teardown: the AHs of sends still here. */
    void destroyAhs() {
        for (AddressHandle ah : ahs) {
            port.quietly("destroy AH", ah::destroy);
        }
        ahs.clear();
    }
}
