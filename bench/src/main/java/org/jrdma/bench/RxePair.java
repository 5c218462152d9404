package org.jrdma.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

import org.jrdma.hw.rxe.net.NettyWire;
import org.jrdma.hw.rxe.net.RxeNetCounter;
import org.jrdma.hw.rxe.net.RxeNetDevice;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
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
import org.jrdma.ib.core.WorkCompletion;

/**
 * Two hw-rxe devices in this JVM on two loopback addresses (netdev lo, 127.X.Y.1 and .2, real UDP 4791
 * through Netty epoll), one RC QP on each, connected, each with a registered buffer.
 */
final class RxePair implements AutoCloseable {
    final IbCore core = IbCore.newInstance();
    final String net = randomLoopbackNet();
    final RxeNetDevice ra;
    final RxeNetDevice rb;
    final Side a;
    final Side b;

    final class Side {
        final IbDevice dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf;
        final MemoryRegion mr;
        final WorkCompletion[] wc = new WorkCompletion[64];

        Side(IbDevice dev, int bufferBytes, int depth, org.jrdma.ib.core.CompletionHandler handler) {
            this.dev = dev;
            pd = dev.allocPd(LoopbackPair.OWNER);
            cq = dev.createCq(LoopbackPair.OWNER, new CqInitAttr().cqe(depth * 4).compHandler(handler));
            qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq)
                    .cap(new QpCap().maxSendWr(depth).maxRecvWr(depth).maxSendSge(1).maxRecvSge(1).maxInlineData(64)));
            buf = ByteBuffer.allocateDirect(bufferBytes);
            mr = pd.regMr(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
        }

        /** Polls until {@code n} completions arrived; all must be successful. */
        void await(int n) {
            LoopbackPair.await(cq, wc, n, true);
        }
    }

    /**
     * "127.X.Y.": a random /24 of the loopback range, so that runs on one host (or a baseline and an rxe
     * pair in one JVM) never collide on a UDP port.
     */
    static String randomLoopbackNet() {
        return "127." + ThreadLocalRandom.current().nextInt(16, 250) + "." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
    }

    RxePair(int bufferBytes, int depth) {
        this(bufferBytes, depth, null, null);
    }

    /** @param handlerA, handlerB the completion handlers of a's and b's CQ (null: none) */
    RxePair(int bufferBytes, int depth, org.jrdma.ib.core.CompletionHandler handlerA,
            org.jrdma.ib.core.CompletionHandler handlerB) {
        this(bufferBytes, depth, handlerA, handlerB, 1);
    }

    /**
     * @param rdAtomic RDMA READs in flight per QP (max_rd_atomic and max_dest_rd_atomic; perftest's -o,
     *                 whose default is the device's max_qp_rd_atom)
     */
    RxePair(int bufferBytes, int depth, org.jrdma.ib.core.CompletionHandler handlerA,
            org.jrdma.ib.core.CompletionHandler handlerB, int rdAtomic) {
        ra = RxeNetDevice.open(core.registrar(), "bencha%d", "lo", net + "1", 0, NettyWire.Transport.AUTO);
        rb = RxeNetDevice.open(core.registrar(), "benchb%d", "lo", net + "2", 0, NettyWire.Transport.AUTO);
        a = new Side(ra.ibDevice(), bufferBytes, depth, handlerA);
        b = new Side(rb.ibDevice(), bufferBytes, depth, handlerB);
        connect(a, b, rdAtomic);
        connect(b, a, rdAtomic);
    }

    private static void connect(Side s, Side t, int rdAtomic) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
        s.qp.modify(new QpAttr().state(QpState.RTR).av(new AhAttr().portNum(1).grh(t.dev.queryGid(1, 0), 0))
                .pathMtu(s.dev.queryPort(1).activeMtu()).destQpNum(t.qp.qpNum()).rqPsn(0).maxDestRdAtomic(rdAtomic)
                .minRnrTimer(1));
        s.qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(rdAtomic));
    }

    /**
     * rxe's counters of both devices, for the log of a run, each followed by the datagrams the kernel dropped at
     * that device's socket (receive buffer full; left out when none).
     */
    String counters() {
        return "a: " + ra.device().counters() + drops(ra) + "\nb: " + rb.device().counters() + drops(rb);
    }

    private static String drops(RxeNetDevice d) {
        long n = d.wire().socketDrops();
        var w = d.wire();
        String gso = w.counter(RxeNetCounter.GSO_DATAGRAMS) > 0 || w.counter(RxeNetCounter.GRO_READS) > 0 ? " gso_datagrams=" + w.counter(RxeNetCounter.GSO_DATAGRAMS)
                + " gso_segments=" + w.counter(RxeNetCounter.GSO_SEGMENTS) + " gathered=" + w.counter(RxeNetCounter.GATHERED) + " gro_reads=" + w.counter(RxeNetCounter.GRO_READS) + " gro_bounced=" + w.counter(RxeNetCounter.GRO_BOUNCED) : "";
        return (n > 0 ? " socket_drops=" + n : "") + gso;
    }

    @Override
    public void close() {
        System.err.println(counters());
        for (Side s : new Side[] {a, b}) {
            s.qp.destroy();
            s.mr.dereg();
            s.cq.destroy();
            s.pd.dealloc();
        }
        ra.close();
        rb.close();
    }
}
