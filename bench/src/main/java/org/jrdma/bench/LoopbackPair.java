package org.jrdma.bench;

import java.nio.ByteBuffer;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;

/** Two RC QPs between the two ports of one loopback device, with a registered source and target. */
final class LoopbackPair implements AutoCloseable {
    final IbCore core = IbCore.newInstance();
    final LoopbackDevice lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "bench%d", 2, 0);
    final IbDevice dev;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair a;
    final QueuePair b;
    final MemoryRegion src;
    final MemoryRegion dst;
    final ByteBuffer srcBuf;
    final ByteBuffer dstBuf;
    private final WorkCompletion[] wc = new WorkCompletion[64];

    static final IbClient OWNER = new IbClient() {
        public String name() { return "bench"; }
        public void add(IbDevice device) { }
        public void remove(IbDevice device, Object data) { }
    };

    LoopbackPair(int bufferBytes, int sqDepth) {
        dev = lo.register(core.registrar()).device();
        pd = dev.allocPd(OWNER);
        cq = dev.createCq(OWNER, new CqInitAttr().cqe(sqDepth * 2));
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(sqDepth).maxRecvWr(16).maxSendSge(1).maxRecvSge(1));
        a = pd.createQp(init);
        b = pd.createQp(init);
        connect(a, 1, b, 2);
        connect(b, 2, a, 1);
        srcBuf = ByteBuffer.allocateDirect(bufferBytes);
        dstBuf = ByteBuffer.allocateDirect(bufferBytes);
        src = pd.regMr(srcBuf, Access.LOCAL_WRITE);
        dst = pd.regMr(dstBuf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    private void connect(QueuePair qp, int port, QueuePair peer, int peerPort) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port).accessFlags(Access.REMOTE_WRITE));
        qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(port).dlid(dev.queryPort(peerPort).lid()))
                .pathMtu(dev.queryPort(port).activeMtu()).destQpNum(peer.qpNum()).rqPsn(0).maxDestRdAtomic(1)
                .minRnrTimer(1));
        qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
    }

    /** Spins until {@code n} completions arrived; all must be successful. */
    void await(int n) {
        await(cq, wc, n, false);
    }

    /**
     * Polls {@code cq} until {@code n} completions arrived; all must be successful. {@code yield}: after
     * 64 empty polls give the CPU away (a transport's threads need it; loopback moves data on the poster).
     */
    static void await(CompletionQueue cq, WorkCompletion[] wc, int n, boolean yield) {
        int got = 0;
        int idle = 0;
        while (got < n) {
            int k = cq.poll(wc, Math.min(wc.length, n - got));
            for (int i = 0; i < k; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + wc[i]);
                }
            }
            got += k;
            if (k > 0) {
                idle = 0;
            } else if (yield && ++idle > 64) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public void close() {
        lo.close();
    }
}
