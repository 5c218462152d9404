package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.CompletionHandler;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WorkCompletion;

/**
 * The verbs side of one interface (Linux's {@code ipoib_transport_dev_init} and the rings of {@code ipoib_ib.c}): a
 * PD, one CQ, the UD QP with the broadcast group's Q_Key, a receive ring of GRH + IB MTU slots and a send ring of
 * IB MTU slots (sizes from {@link QueueSizes}), each ring in one registered buffer. Used only on the interface's
 * thread.
 */
final class UdQp {
    static final int IB_MTU = 2048;
    static final int RX_SLOT = WcFlags.GRH_BYTES + IB_MTU;

    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    private final QueueSizes sizes;
    private final ByteBuffer rxBuf;
    private final MemoryRegion rxMr;
    private final SendSlots tx;
    private final WorkCompletion[] wcs = new WorkCompletion[16];

    /** A completion, as the interface handles it. */
    interface Handler {
        void received(int slot, WorkCompletion wc, ByteBuffer rx, int off);

        void sent(WorkCompletion wc);
    }

    UdQp(IbDevice dev, IbClient owner, int port, int qkey, QueueSizes sizes, CompletionHandler notify) {
        this.sizes = sizes;
        rxBuf = ByteBuffer.allocateDirect(sizes.recv() * RX_SLOT);
        pd = dev.allocPd(owner);
        CompletionQueue c = null;
        QueuePair q = null;
        MemoryRegion r = null;
        try {
            c = dev.createCq(owner, new CqInitAttr().cqe(sizes.recv() + sizes.send()).compHandler(notify));
            q = pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(c).cap(new QpCap().maxSendWr(sizes.send())
                    .maxRecvWr(sizes.recv()).maxSendSge(1).maxRecvSge(1)));
            q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port).qkey(qkey));
            q.modify(new QpAttr().state(QpState.RTR));
            q.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            r = pd.regMr(rxBuf, Access.LOCAL_WRITE);
            tx = new SendSlots(pd, sizes.send(), IB_MTU);
        } catch (RuntimeException e) {
            destroy(q, r, null, c, pd);
            throw e;
        }
        cq = c;
        qp = q;
        rxMr = r;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    int qpn() {
        return qp.qpNum();
    }

    void postRecvAll() {
        for (int i = 0; i < sizes.recv(); i++) {
            postRecv(i);
        }
    }

    void postRecv(int slot) {
        qp.postRecv(new RecvWr().wrId(slot).sgList(new Sge(rxMr.iova() + (long) slot * RX_SLOT, RX_SLOT,
                rxMr.lkey())));
    }

    /** Whether a send slot is free (the ring is what Linux's netif queue stop is for). */
    boolean canSend() {
        return tx.canSend();
    }

    /** Posts the IPoIB header and {@code payload} as one UD SEND; false if the ring is full. */
    boolean send(AddressHandle ah, int qpn, int qkey, int ethertype, byte[] payload) {
        return tx.post(qp, ethertype, payload, wr -> wr.ud(ah, qpn, qkey));
    }

    /** Polls until the CQ is empty and re-armed (NAPI's poll loop); each completion goes to {@code h}. */
    void poll(Handler h) {
        drain(cq, wcs, wc -> dispatch(wc, h));
    }

    /** Polls {@code cq} until it is empty and re-armed, each completion to {@code each}. */
    static void drain(CompletionQueue cq, WorkCompletion[] wcs, java.util.function.Consumer<WorkCompletion> each) {
        do {
            int n;
            while ((n = cq.poll(wcs)) > 0) {
                for (int i = 0; i < n; i++) {
                    each.accept(wcs[i]);
                }
            }
        } while (cq.reqNotify(CqNotify.NEXT_COMP, true));
    }

    private void dispatch(WorkCompletion wc, Handler h) {
        dispatch(wc, h, tx, rxBuf, RX_SLOT);
    }

    /** A send completion frees its slot and goes to {@code sent}; a receive names its slot of {@code rx}. */
    static void dispatch(WorkCompletion wc, Handler h, SendSlots tx, ByteBuffer rx, int rxSlotSize) {
        if (tx.completed(wc)) {
            h.sent(wc);
        } else {
            int slot = (int) wc.wrId();
            h.received(slot, wc, rx, slot * rxSlotSize);
        }
    }

    /** QP to ERR and gone (outstanding receives flush), then CQ, MRs, PD. */
    void destroy() {
        destroy(qp, rxMr, tx.mr(), cq, pd);
    }

    private static void destroy(QueuePair q, MemoryRegion r, MemoryRegion t, CompletionQueue c, ProtectionDomain p) {
        if (q != null) {
            q.destroy();
        }
        release(r, t, c, p::dealloc);
    }

    /** Deregisters the MRs, destroys the CQ, then runs {@code last}; nulls are skipped. */
    static void release(MemoryRegion r, MemoryRegion t, CompletionQueue c, Runnable last) {
        if (r != null) {
            r.dereg();
        }
        if (t != null) {
            t.dereg();
        }
        if (c != null) {
            c.destroy();
        }
        last.run();
    }
}
