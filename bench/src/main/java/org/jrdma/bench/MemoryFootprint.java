package org.jrdma.bench;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.hw.rxe.net.NettyWire;
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
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/**
 * What a device with {@value #QPS} RC QPs (SQ and RQ {@value #DEPTH} deep each, one CQ of
 * 2 x {@value #DEPTH} entries per QP, connected pairwise to RTS, every RQ full, then every SQ slot used
 * once: {@value #DEPTH} signaled 8-byte RDMA WRITEs per QP, completed and polled) holds: used heap after
 * full GCs and direct memory (BufferPoolMXBean "direct", plus Netty's own counters), measured before and
 * after each step in this JVM. Netty's direct buffers are in the BufferPoolMXBean's count unless Netty
 * allocates them without a Cleaner; {@code total} (heap plus direct) counts them once either way. No JMH: run as {@code java -cp benchmarks.jar org.jrdma.bench.MemoryFootprint
 * loopback|rxe}; prints one JSON object. With {@code -Djrdma.bench.histogram=N} it also prints the top N
 * rows of the heap's class histogram (after the last step) to stderr.
 */
public final class MemoryFootprint {
    static final int QPS = 1000;
    static final int DEPTH = 256;

    public static void main(String[] args) throws Exception {
        String driver = args.length > 0 ? args[0] : "loopback";
        IbCore core = IbCore.newInstance();
        Map<String, long[]> steps = new LinkedHashMap<>();
        steps.put("start", measure());
        AutoCloseable close;
        IbDevice dev;
        if (driver.equals("rxe")) {
            RxeNetDevice rxe = RxeNetDevice.open(core.registrar(), "mem%d", "lo", RxePair.randomLoopbackNet() + "1", 0,
                    NettyWire.Transport.AUTO);
            dev = rxe.ibDevice();
            close = rxe::close;
        } else {
            LoopbackDevice lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "mem%d", 2, 0);
            dev = lo.register(core.registrar()).device();
            close = lo::close;
        }
        steps.put("device", measure());
        ProtectionDomain pd = dev.allocPd(LoopbackPair.OWNER);
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        MemoryRegion mr = pd.regMr(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        steps.put("pd+mr", measure());
        List<CompletionQueue> cqs = new ArrayList<>();
        for (int i = 0; i < QPS; i++) {
            cqs.add(dev.createCq(LoopbackPair.OWNER, new CqInitAttr().cqe(2 * DEPTH)));
        }
        steps.put("cqs", measure());
        List<QueuePair> qps = new ArrayList<>();
        for (int i = 0; i < QPS; i++) {
            qps.add(pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cqs.get(i))
                    .cap(new QpCap().maxSendWr(DEPTH).maxRecvWr(DEPTH).maxSendSge(1).maxRecvSge(1))));
        }
        steps.put("qps", measure());
        boolean rxe = driver.equals("rxe");
        for (int i = 0; i < QPS; i++) {
            QueuePair qp = qps.get(i);
            QueuePair peer = qps.get(i ^ 1);
            int port = rxe ? 1 : 1 + (i & 1);
            int peerPort = rxe ? 1 : 1 + ((i ^ 1) & 1);
            AhAttr av = rxe ? new AhAttr().portNum(1).grh(dev.queryGid(1, 0), 0)
                    : new AhAttr().portNum(port).dlid(dev.queryPort(peerPort).lid());
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(port).accessFlags(Access.REMOTE_WRITE));
            qp.modify(new QpAttr().state(QpState.RTR).av(av).pathMtu(dev.queryPort(port).activeMtu())
                    .destQpNum(peer.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
            qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1));
        }
        steps.put("rts", measure());
        RecvWr wr = new RecvWr().sgList(new Sge(mr.iova(), 4096, mr.lkey()));
        for (QueuePair qp : qps) {
            for (int j = 0; j < DEPTH; j++) {
                qp.postRecv(wr.wrId(j));
            }
        }
        steps.put("rq-full", measure());
        // every SQ slot used once (a driver that allocates slot state lazily shows its worst case here)
        SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(mr.iova(), 8, mr.lkey())).remote(mr.iova() + 8, mr.rkey());
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        for (int i = 0; i < QPS; i++) {
            QueuePair qp = qps.get(i);
            for (int j = 0; j < DEPTH; j++) {
                qp.postSend(w.wrId(j));
            }
            await(cqs.get(i), wc, DEPTH);
        }
        steps.put("sq-cycled", measure());

        long[] s = steps.get("start");
        StringBuilder json = new StringBuilder();
        json.append("{\"driver\": \"").append(driver).append("\", \"qps\": ").append(QPS).append(", \"depth\": ").append(DEPTH)
                .append(", \"jvm\": \"").append(System.getProperty("java.vm.version"))
                .append("\", \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(", \"steps\": [");
        String sep = "";
        for (Map.Entry<String, long[]> e : steps.entrySet()) {
            long[] m = e.getValue();
            json.append(sep).append("{\"step\": \"").append(e.getKey()).append("\", \"heap\": ").append(m[0] - s[0])
                    .append(", \"direct\": ").append(m[1] - s[1]).append(", \"nettyDirect\": ").append(m[2] - s[2])
                    .append(", \"nettyPooledDirect\": ").append(m[3] - s[3]).append(", \"nettyPooledHeap\": ")
                    .append(m[4] - s[4]).append(", \"total\": ")
                    .append(m[0] - s[0] + m[1] - s[1] + (NETTY_OUTSIDE_MXBEAN ? m[2] - s[2] : 0)).append('}');
            sep = ", ";
        }
        json.append("]}");
        System.out.println(json);
        int top = Integer.getInteger("jrdma.bench.histogram", 0);
        if (top > 0) {
            String h = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            h.lines().limit(top + 3L).forEach(System.err::println);
        }
        // keep everything reachable until measured
        if (qps.size() + cqs.size() < 0 || buf.capacity() < 0) {
            System.out.println(wr);
        }
        close.close();
        System.exit(0);
    }

    /** Polls {@code cq} until {@code n} successful completions arrived (at most a minute). */
    static void await(CompletionQueue cq, WorkCompletion[] wc, int n) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        int got = 0;
        while (got < n) {
            int k = cq.poll(wc, Math.min(wc.length, n - got));
            for (int i = 0; i < k; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + wc[i]);
                }
            }
            got += k;
            if (k == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(got + " of " + n + " completions after a minute");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Netty's direct buffers bypass the JDK's count (and BufferPoolMXBean) only when it allocates them without a Cleaner. */
    static final boolean NETTY_OUTSIDE_MXBEAN = io.netty.util.internal.PlatformDependent.useDirectBufferNoCleaner();

    /**
     * used heap after GC, JDK direct buffers, Netty's own direct counter, and the direct and heap chunks
     * of the Netty pools (Netty's default and hw-rxe's packet pool; the heap ones are part of the heap)
     */
    static long[] measure() throws InterruptedException {
        long heap = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            heap = Math.min(heap, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        long direct = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (p.getName().equals("direct")) {
                direct = p.getMemoryUsed();
            }
        }
        long netty = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
        var pools = List.of(io.netty.buffer.PooledByteBufAllocator.DEFAULT.metric(),
                org.jrdma.hw.rxe.PacketPool.ALLOC.metric());
        long pooledDirect = pools.stream().mapToLong(m -> m.usedDirectMemory()).sum();
        long pooledHeap = pools.stream().mapToLong(m -> m.usedHeapMemory()).sum();
        return new long[] {heap, direct, netty, pooledDirect, pooledHeap};
    }
}
