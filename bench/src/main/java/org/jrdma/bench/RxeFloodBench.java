package org.jrdma.bench;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * hw-rxe under a hostile flood (issue 17): 64 KiB RDMA WRITEs from a to b over real UDP (as
 * {@link RxeBandwidthBench}), while one thread floods b's port 4791 with forged packets of one {@link RxeFlood.Kind};
 * {@code none} is the baseline of the same run. The ratio is what the legitimate QP keeps; the flood's packets
 * are dropped and counted by b (its counters are printed at the end of each trial).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RxeFloodBench {
    static final int SIZE = 65536;
    static final int BATCH = RxeBandwidthBench.BATCH;
    static final int WINDOW = RxeBandwidthBench.WINDOW;

    @State(Scope.Thread)
    public static class S {
        @Param({"none", "UNKNOWN_QPN", "DUPLICATE_READS", "UD_DATAGRAMS", "CM_REQS"})
        public String flood;

        RxePair pair;
        RxeFlood flooder;
        /** CM_REQS: the MAD layer and RDMA CM on the pair's devices, and the listener the REQs go to. */
        org.jrdma.ib.mad.impl.MadLayer mad;
        org.jrdma.ib.cm.impl.RdmaCmService cm;
        org.jrdma.ib.cm.RdmaCmId listener;
        final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();
        CompletionQueue udCq;
        QueuePair ud;
        final SendWr[] chain = new SendWr[BATCH];
        final Sge[] sges = new Sge[BATCH];
        final int[] offset = {0};
        int inflight;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            pair = new RxePair(RxeBandwidthBench.BUFFER, BATCH * (WINDOW + 1));
            for (int i = BATCH - 1; i >= 0; i--) {
                sges[i] = new Sge(0, SIZE, pair.a.mr.lkey());
                chain[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sgList(sges[i])
                        .sendFlags(i == BATCH - 1 ? SendFlags.SIGNALED : 0).next(i == BATCH - 1 ? null : chain[i + 1]);
            }
            if (flood.equals("none")) {
                return;
            }
            RxeFlood.Kind kind = RxeFlood.Kind.valueOf(flood);
            InetAddress a = InetAddress.getByName(pair.net + "1");
            InetAddress b = InetAddress.getByName(pair.net + "2");
            int qpn = pair.b.qp.qpNum();
            if (kind == RxeFlood.Kind.UD_DATAGRAMS) {
                udCq = pair.b.dev.createCq(LoopbackPair.OWNER, new CqInitAttr().cqe(16));
                ud = pair.b.pd.createQp(new QpInitAttr().qpType(QpType.UD).cq(udCq)
                        .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
                ud.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(0x11111111));
                ud.modify(new QpAttr().state(QpState.RTR));
                ud.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
                qpn = ud.qpNum();
            }
            // duplicates come from a's address (the QP's peer), the others from an address of their own
            if (kind == RxeFlood.Kind.CM_REQS) {
                listen(b);
                qpn = 1;
            }
            InetAddress from = kind == RxeFlood.Kind.DUPLICATE_READS ? a : InetAddress.getByName(pair.net + "3");
            flooder = new RxeFlood(kind, from, b, qpn, pair.b.mr.iova(), pair.b.mr.rkey(),
                    () -> pair.b.qp.query().rqPsn());
            flooder.start();
        }

        /** A server as rping -s: rdma_listen with a backlog of 1024, every request refused by its handler. */
        private void listen(InetAddress b) {
            mad = new org.jrdma.ib.mad.impl.MadLayer(pair.core);
            cm = new org.jrdma.ib.cm.impl.RdmaCmService(pair.core, mad);
            listener = cm.createId((id, e) -> {
                if (e.type() == org.jrdma.ib.cm.RdmaCmEventType.CONNECT_REQUEST) {
                    requests.incrementAndGet();
                    return 1; // reject and destroy
                }
                return 0;
            }, org.jrdma.ib.cm.RdmaPortSpace.TCP);
            listener.bindAddr(new java.net.InetSocketAddress(b, RxeFlood.CM_PORT));
            listener.listen(1024);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            if (flooder != null) {
                flooder.close();
                System.err.println("flood " + flood + ": " + flooder.sent + " packets sent"
                        + (listener == null ? "" : ", " + requests.get() + " CONNECT_REQUESTs refused by the listener"));
            }
            if (listener != null) {
                listener.close();
                cm.close();
                mad.close();
            }
            pair.a.await(inflight);
            if (ud != null) {
                ud.destroy();
                udCq.destroy();
            }
            pair.close();
        }
    }

    /** 16 WRITEs of 64 KiB posted as a chain, 4 chains in flight. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void write(S s) {
        for (int i = 0; i < BATCH; i++) {
            long o = RxeBandwidthBench.advance(s.offset, SIZE);
            s.sges[i].addr(s.pair.a.mr.iova() + o);
            s.chain[i].remote(s.pair.b.mr.iova() + o, s.pair.b.mr.rkey());
        }
        if (s.inflight == WINDOW) {
            s.pair.a.await(1);
            s.inflight--;
        }
        s.pair.a.qp.postSend(s.chain[0]);
        s.inflight++;
    }
}
