package org.jrdma.verbs.conformance;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;

/** One end of a {@link QpPair}: device, port, PD, CQs, the QP and its event log. */
public final class Side {
    public final String name;
    public final Resources res;
    public final IbDevice dev;
    public final int port;
    public final ProtectionDomain pd;
    public final CompletionQueue scq;
    public final CompletionQueue rcq;
    public final QueuePair qp;
    /** Async events of {@link #qp}. */
    public final EventLog events;
    /** Async events of the CQs this side made (CQ_ERR). */
    public final EventLog cqEvents;
    /** UD: an address handle (in this side's PD) that reaches the peer's port; null otherwise. */
    AddressHandle ahToPeer;
    Side peer;

    Side(String name, Resources res, IbDevice dev, int port, ProtectionDomain pd, CompletionQueue scq,
            CompletionQueue rcq, QueuePair qp, EventLog events, EventLog cqEvents) {
        this.name = name;
        this.res = res;
        this.dev = dev;
        this.port = port;
        this.pd = pd;
        this.scq = scq;
        this.rcq = rcq;
        this.qp = qp;
        this.events = events;
        this.cqEvents = cqEvents;
    }

    public Side peer() {
        return peer;
    }

    public AddressHandle ahToPeer() {
        return ahToPeer;
    }

    /** A registered direct buffer in this side's PD. */
    public Buf buf(int size, int access) {
        return res.buf(pd, size, access, true);
    }

    /** A registered heap buffer in this side's PD. */
    public Buf heapBuf(int size, int access) {
        return res.buf(pd, size, access, false);
    }

    public void postRecv(long wrId, Sge... sges) {
        qp.postRecv(new RecvWr().wrId(wrId).sgList(sges));
    }

    public void postSend(SendWr wr) {
        qp.postSend(wr);
    }

    public QpState state() {
        return qp.state();
    }

    @Override
    public String toString() {
        return name + "(" + dev.name() + ":" + port + " " + qp.qpType() + " QP " + qp.qpNum() + ")";
    }
}
