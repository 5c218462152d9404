package org.jrdma.bench;

import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * hw-rxe RDMA WRITE bandwidth, 64 KiB messages between two devices on loopback addresses (RoCEv2 over
 * real UDP, IB MTU 4096 from lo's MTU: 16 packets a message), against a plain Netty UDP blast of the same
 * datagrams (sizes as rxe's WRITE FIRST/MIDDLE/LAST) between two channels on the same kind of addresses,
 * with the same 128-packet window. One operation is one 64 KiB message.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RxeWriteBench {
    static final int SIZE = 65536;
    static final int MTU = 4096;
    static final int BATCH = 16;
    static final int WINDOW = 4;
    static final int BUFFER = 16 << 20;

    @State(Scope.Thread)
    public static class Rxe {
        RxePair pair;
        SendWr[] chain = new SendWr[BATCH];
        Sge[] sges = new Sge[BATCH];
        int offset;
        int inflight;

        @Setup(Level.Trial)
        public void setup() {
            pair = new RxePair(BUFFER, BATCH * (WINDOW + 1));
            for (int i = BATCH - 1; i >= 0; i--) {
                sges[i] = new Sge(0, SIZE, pair.a.mr.lkey());
                chain[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sgList(sges[i])
                        .sendFlags(i == BATCH - 1 ? SendFlags.SIGNALED : 0).next(i == BATCH - 1 ? null : chain[i + 1]);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.a.await(inflight);
            pair.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdmaWrite(Rxe s) {
        for (int i = 0; i < BATCH; i++) {
            long o = s.offset;
            s.offset += SIZE;
            if (s.offset + SIZE > BUFFER) {
                s.offset = 0;
            }
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

    @State(Scope.Thread)
    public static class Udp {
        UdpPair pair;
        ByteBuf src;
        long sent;
        /** BTH + RETH + payload + ICRC, BTH + payload + ICRC: rxe's WRITE FIRST and MIDDLE/LAST. */
        static final int FIRST = 12 + 16 + MTU + 4;
        static final int NEXT = 12 + MTU + 4;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            pair = new UdpPair(RxePair.randomLoopbackNet(), false);
            src = Unpooled.directBuffer(FIRST).writeZero(FIRST);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
            src.release();
        }
    }

    /** One 64 KiB "message": 16 datagrams written and flushed in one event loop task, window 128. */
    @Benchmark
    public void udpBlast(Udp s) {
        long deadline = 0;
        while (s.sent - s.pair.receivedB.get() > 128 - 16) {
            if (deadline == 0) {
                deadline = System.nanoTime() + 10_000_000L;
            } else if (System.nanoTime() - deadline > 0) {
                s.sent = s.pair.receivedB.get(); // lost datagrams: do not wait for them
                break;
            }
            Thread.yield();
        }
        s.sent += SIZE / MTU;
        s.pair.a.eventLoop().execute(() -> {
            for (int i = 0; i < SIZE / MTU; i++) {
                s.pair.a.write(s.pair.toB(s.src, i == 0 ? Udp.FIRST : Udp.NEXT), s.pair.a.voidPromise());
            }
            s.pair.a.flush();
        });
    }
}
