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
    /** RMPP reassembly of the response: the segments so far (null until the first arrives). */
    java.util.List<byte[]> rmppSegs;
    /** Bumped whenever the timer is restarted, so a stale timer that fires anyway does nothing. */
    int timerGen;
    /** Segments waiting for a free send slot (the whole MAD, or RMPP segments). */
    final java.util.ArrayDeque<byte[]> queuedBytes = new java.util.ArrayDeque<>();

    /** RMPP sender ({@code mad_rmpp.c}): ACK timeout and retries when the sender gives none. */
    static final int RMPP_TIMEOUT_MS = 1000;
    static final int RMPP_RETRIES = 3;
    /** Segments of an RMPP send (0: not RMPP), the last acknowledged, the window end, the next to send. */
    int rmppSegCount;
    int rmppLastAck;
    int rmppNewWin;
    int rmppNext;

    /** An RMPP transfer: the first window is one segment (IBTA 13.6.5); done when the last is ACKed. */
    void rmppInit() {
        int hdr = Rmpp.dataOffset(mgmtClass);
        int per = org.jrdma.ib.mad.Mad.SIZE - hdr;
        int dataLen = send.rmppDataLen() >= 0 ? send.rmppDataLen() : send.mad().bytes().length - hdr;
        rmppSegCount = Math.max(1, (dataLen + per - 1) / per);
        rmppLastAck = 0;
        rmppNewWin = 1;
        rmppNext = 1;
        if (timeoutMs == 0) {
            timeoutMs = RMPP_TIMEOUT_MS;
            retriesLeft = send.retries() > 0 ? send.retries() : RMPP_RETRIES;
        }
    }

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
