package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionHandler;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.WorkCompletion;

/**
 * The verbs side connected mode shares across an interface's connections (Linux's {@code ipoib_cm_dev_init}): one
 * CQ for every RC QP, the SRQ every passive connection receives on with a ring of {@value #BUF_SIZE}-byte slots
 * ({@code IPOIB_CM_BUF_SIZE}, 64 KiB less 16 plus the header, rounded up), and a pool of send slots of the same size
 * every active connection posts from. Ring sizes are the interface's receive and send queue sizes. Used only on
 * the interface's thread.
 */
final class CmRings {
    /** {@code IPOIB_CM_MTU}: the largest IP packet over a connection. */
    static final int CM_MTU = 0x10000 - 0x10;
    /** {@code IPOIB_CM_BUF_SIZE}: the receive MTU a REQ and REP advertise (IP packet + IPoIB header). */
    static final int CM_BUF_SIZE = CM_MTU + Encap.LEN;
    static final int BUF_SIZE = 0x10000;

    final CompletionQueue cq;
    final SharedReceiveQueue srq;
    private final ProtectionDomain pd;
    private final QueueSizes sizes;
    private final ByteBuffer rxBuf;
    private final MemoryRegion rxMr;
    private final SendSlots tx;
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private boolean closing;

    CmRings(IbDevice dev, IbClient owner, ProtectionDomain pd, QueueSizes sizes, CompletionHandler notify) {
        this.pd = pd;
        this.sizes = sizes;
        rxBuf = ByteBuffer.allocateDirect(sizes.recv() * BUF_SIZE);
        CompletionQueue c = dev.createCq(owner, new CqInitAttr().cqe(sizes.recv() + sizes.send()).compHandler(notify));
        SharedReceiveQueue s = null;
        MemoryRegion r = null;
        try {
            s = pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr(sizes.recv()).maxSge(1)));
            r = pd.regMr(rxBuf, Access.LOCAL_WRITE);
            tx = new SendSlots(pd, sizes.send(), BUF_SIZE);
        } catch (RuntimeException e) {
            UdQp.release(r, null, c, () -> { });
            if (s != null) {
                s.destroy();
            }
            throw e;
        }
        cq = c;
        srq = s;
        rxMr = r;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        for (int i = 0; i < sizes.recv(); i++) {
            postRecv(i);
        }
    }

    /** An RC QP on the shared CQ and SRQ ({@code ipoib_cm_create_tx_qp}, {@code ipoib_cm_create_rx_qp}). */
    QueuePair createQp() {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq).srq(srq)
                .cap(new QpCap().maxSendWr(sizes.send()).maxSendSge(1)));
    }

    /** A connection's QP to ERR (its sends flush back to the CQ, their slots with them), then gone. */
    static void destroyQp(QueuePair qp) {
        try {
            qp.modify(new org.jrdma.ib.core.QpAttr().state(org.jrdma.ib.core.QpState.ERR));
        } catch (RuntimeException e) {
            // already in error or reset: destroying it is all that is left
        }
        qp.destroy();
    }

    void postRecv(int slot) {
        if (!closing) {
            srq.postRecv(new RecvWr().wrId(slot).sgList(new Sge(rxMr.iova() + (long) slot * BUF_SIZE, BUF_SIZE,
                    rxMr.lkey())));
        }
    }

    boolean canSend() {
        return tx.canSend();
    }

    /** Posts the IPoIB header and {@code payload} as one RC SEND on {@code qp}; false if no send slot is free. */
    boolean send(QueuePair qp, int ethertype, byte[] payload) {
        return tx.post(qp, ethertype, payload, wr -> wr);
    }

    void poll(UdQp.Handler h) {
        UdQp.drain(cq, wcs, wc -> UdQp.dispatch(wc, h, tx, rxBuf, BUF_SIZE));
    }

    /** After every connection's QP is gone: the SRQ (its receives flush), MRs, CQ. The PD is the UD side's. */
    void destroy() {
        closing = true;
        srq.destroy();
        UdQp.release(rxMr, tx.mr(), cq, () -> { });
    }
}
