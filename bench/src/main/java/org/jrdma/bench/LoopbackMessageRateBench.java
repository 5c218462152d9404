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

/**
 * Message rate of 64-byte RDMA WRITEs on hw-loopback: posted as chains of 16, one signaled every
 * 16, with {@link #WINDOW} chains in flight (perftest's {@code ib_write_bw -s 64 --cq-mod 16}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class LoopbackMessageRateBench {
    static final int BATCH = 16;
    static final int WINDOW = 8;
    static final int SIZE = 64;

    LoopbackPair pair;
    SendWr[] chain;
    int inflight;

    @Setup(Level.Trial)
    public void setup() {
        pair = new LoopbackPair(1 << 20, BATCH * (WINDOW + 1));
        chain = new SendWr[BATCH];
        for (int i = BATCH - 1; i >= 0; i--) {
            chain[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE)
                    .sgList(new Sge(pair.src.iova() + i * SIZE, SIZE, pair.src.lkey()))
                    .remote(pair.dst.iova() + i * SIZE, pair.dst.rkey())
                    .sendFlags(i == BATCH - 1 ? SendFlags.SIGNALED : 0).next(i == BATCH - 1 ? null : chain[i + 1]);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.await(inflight);
        pair.close();
    }

    /** One op = one 64-byte WRITE; the score in ops/us is Mops/s. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdmaWrite64() {
        pair.a.postSend(chain[0]);
        if (++inflight > WINDOW) {
            pair.await(1);
            inflight--;
        }
    }
}
