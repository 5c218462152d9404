package org.example.hello;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/**
 * The verbs resources of one connection, either side: PD, CQ, the RC QP the RDMA CM creates on the id
 * ({@code rdma_create_qp}), and three registered 4 KiB buffers: what we send, what we receive, and one the
 * peer may RDMA WRITE into. Completions are handed, copied, to the owner's sink.
 */
final class HelloConn implements AutoCloseable {
    static final int BUF = 4096;

    /** One completion, copied out of the reused {@link WorkCompletion}. */
    record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
    }

    final RdmaCmId id;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final ByteBuffer sendBuf = ByteBuffer.allocateDirect(BUF);
    final ByteBuffer recvBuf = ByteBuffer.allocateDirect(BUF);
    final ByteBuffer rdmaBuf = ByteBuffer.allocateDirect(BUF);
    final MemoryRegion sendMr;
    final MemoryRegion recvMr;
    final MemoryRegion rdmaMr;
    private final BiConsumer<HelloConn, Completion> sink;
    private final WorkCompletion[] wc = { new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion() };
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Allocates everything on the id's device (resolved, or a connect request's); throws as the verbs do. */
    HelloConn(RdmaCmId id, IbClient owner, BiConsumer<HelloConn, Completion> sink) {
        this.id = id;
        this.sink = sink;
        IbDevice dev = id.device();
        pd = dev.allocPd(owner);
        cq = dev.createCq(owner, new CqInitAttr().cqe(32).compHandler(c -> drain()));
        qp = id.createQp(pd, new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(8).maxRecvWr(8).maxSendSge(1).maxRecvSge(1)));
        sendMr = pd.regMr(sendBuf, Access.LOCAL_WRITE);
        recvMr = pd.regMr(recvBuf, Access.LOCAL_WRITE);
        rdmaMr = pd.regMr(rdmaBuf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        cq.reqNotify(CqNotify.NEXT_COMP, false);
    }

    void postRecv() {
        qp.postRecv(new RecvWr().wrId(1).sgList(new Sge(recvMr.iova(), BUF, recvMr.lkey())));
    }

    /** SEND of the first {@code len} bytes of {@link #sendBuf}. */
    void postSend(int len) {
        qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(sendMr.iova(), len, sendMr.lkey())));
    }

    /** RDMA WRITE of the first {@code len} bytes of {@link #rdmaBuf} to the peer's {@code addr}/{@code rkey}. */
    void postWrite(int len, long addr, int rkey) {
        qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(rdmaMr.iova(), len, rdmaMr.lkey())).remote(addr, rkey));
    }

    /**
     * Polls until empty, then re-arms; loops if completions raced in (the kernel's ib_poll_cq pattern). The
     * sink may post (the server answers from here), and a post may complete and call this again on the same
     * thread: each batch is copied out of {@link #wc} before it is handed on.
     */
    private void drain() {
        do {
            for (Completion[] batch; (batch = poll()).length > 0; ) {
                for (Completion c : batch) {
                    sink.accept(this, c);
                }
            }
        } while (!closed.get() && cq.reqNotify(CqNotify.NEXT_COMP, true));
    }

    private Completion[] poll() {
        synchronized (wc) {
            if (closed.get()) {
                return new Completion[0];
            }
            int n = cq.poll(wc);
            Completion[] batch = new Completion[Math.max(n, 0)];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new Completion(wc[i].wrId(), wc[i].status(), wc[i].opcode(), wc[i].byteLen());
            }
            return batch;
        }
    }

    /** The QP (outstanding work flushes), the MRs, the CQ, the PD; once. */
    @Override
    public void close() {
        synchronized (wc) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
        }
        id.destroyQp();
        rdmaMr.dereg();
        recvMr.dereg();
        sendMr.dereg();
        cq.destroy();
        pd.dealloc();
    }
}
