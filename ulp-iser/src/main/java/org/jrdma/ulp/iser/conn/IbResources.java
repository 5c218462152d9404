package org.jrdma.ulp.iser.conn;

import java.util.concurrent.locks.LockSupport;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;

/**
 * The verbs objects of one connection, made on its CM id's device as {@code iser_create_ib_conn_res} /
 * {@code isert_create_qp} make them (PD, one CQ for both queues, an RC QP through {@code rdma_create_qp}, the
 * registered send and receive buffers, the data buffer pool) and freed in Linux's order: QP, MRs, CQ, PD.
 */
final class IbResources {
    /** Owner of the PDs and CQs in ib-core's resource tracking ({@code rdma resource show}: comm "ib_iser"). */
    static final IbClient OWNER = new IbClient() {
        @Override public String name() { return "ib_iser"; }
        @Override public void add(IbDevice device) { }
        @Override public void remove(IbDevice device, Object clientData) { }
    };

    final IbDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final SendBuffers sendBuffers;
    final RecvRing recv;
    final SlabBufferPool pool;
    private final RdmaCmId id;

    /**
     * Makes everything on {@code id}'s device and posts the receives; the completion handler unparks
     * {@code poller}. On failure frees what it made and rethrows.
     */
    IbResources(RdmaCmId id, IserConnectionConfig cfg, Thread poller) {
        this.id = id;
        device = id.device();
        pd = device.allocPd(OWNER);
        CompletionQueue c = null;
        QueuePair q = null;
        SendBuffers s = null;
        RecvRing r = null;
        try {
            c = device.createCq(OWNER, new CqInitAttr().cqe(cfg.sendWr() + cfg.recvWr())
                    .compHandler(x -> LockSupport.unpark(poller)));
            q = id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(c).cap(new QpCap().maxSendWr(cfg.sendWr())
                    .maxRecvWr(cfg.recvWr()).maxSendSge(1).maxRecvSge(1)));
            s = new SendBuffers(pd, cfg.sendBuffers(), cfg.sendBufferLength());
            r = new RecvRing(pd, q, cfg.recvWr(), cfg.recvBufferLength());
            r.postAll();
        } catch (RuntimeException e) {
            free(id, q, r, s, null, c, pd);
            throw e;
        }
        cq = c;
        qp = q;
        sendBuffers = s;
        recv = r;
        pool = new SlabBufferPool(pd, cfg);
    }

    /** {@code rdma_destroy_qp}: flushes what is still posted. */
    void destroyQp() {
        quietly(id::destroyQp);
    }

    /** The MRs, the CQ and the PD (the QP first if still there); the CM id is the caller's. */
    void free() {
        free(id, qp, recv, sendBuffers, pool, cq, pd);
    }

    private static void free(RdmaCmId id, QueuePair qp, RecvRing r, SendBuffers s, SlabBufferPool pool,
            CompletionQueue cq, ProtectionDomain pd) {
        if (qp != null) {
            quietly(id::destroyQp);
        }
        if (pool != null) {
            pool.destroy();
        }
        if (r != null) {
            r.destroy();
        }
        if (s != null) {
            s.destroy();
        }
        if (cq != null) {
            quietly(cq::destroy);
        }
        quietly(pd::dealloc);
    }

    /** Freeing goes on past a failure (a device being removed refuses some calls). */
    static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            System.getLogger(IbResources.class.getName()).log(System.Logger.Level.DEBUG, "iser teardown: " + e);
        }
    }
}
