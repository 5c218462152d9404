package org.jrdma.ib.mad.impl;

import java.util.concurrent.ScheduledFuture;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.mad.MadSend;

/**
 * {@code struct ib_mad_send_wr_private}: one send on its way, from {@code send()} until it is done
 * (sent, answered, timed out, cancelled or flushed). Guarded by its port's lock.
 */
final class MadSendWr {
    /** The agent that sent it, or null for a reply the MAD layer makes itself (unmatched Get/Set). */
    final MadAgentImpl agent;
    final MadSend send;
    final AddressHandle ah;
    final long tid;
    final int mgmtClass;
    final MadPort.QpInfo qp;
    /** The response timeout; {@code ib_modify_mad} changes it. 0: no response expected. */
    int timeoutMs;
    int retriesLeft;
    /** Work requests posted and not completed yet (at most one in practice). */
    int inflight;
    /** Waiting for a free send slot. */
    boolean queued;
    /** The response arrived (before or after the send completion). */
    boolean responded;
    /** Completed: the sendDone callback is decided. */
    boolean done;
    /** The response timer, while waiting for the response. */
    ScheduledFuture<?> timer;
    /** The RMPP sender's window (null: not an RMPP send). */
    MadRmpp.Sender rmpp;
    /** RMPP reassembly of the response (null until its first segment arrives). */
    MadRmpp.Receiver rmppRecv;
    /** Bumped whenever the timer is restarted, so a stale timer that fires anyway does nothing. */
    int timerGen;
    /** Segments waiting for a free send slot (the whole MAD, or RMPP segments). */
    final java.util.ArrayDeque<byte[]> queuedBytes = new java.util.ArrayDeque<>();

    MadSendWr(MadAgentImpl agent, MadSend send, AddressHandle ah, MadPort.QpInfo qp) {
        this.agent = agent;
        this.send = send;
        this.ah = ah;
        this.qp = qp;
        this.tid = send.mad().tid();
        this.mgmtClass = send.mad().mgmtClass();
        this.timeoutMs = send.timeoutMs();
        this.retriesLeft = send.retries();
    }

    boolean expectsResponse() {
        return timeoutMs > 0;
    }

    void cancelTimer() {
        timerGen++;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public String toString() {
        return "send tid 0x" + Long.toHexString(tid) + " class 0x" + Integer.toHexString(mgmtClass)
                + (done ? " done" : inflight > 0 ? " posted" : queued ? " queued" : " waiting");
    }
}
