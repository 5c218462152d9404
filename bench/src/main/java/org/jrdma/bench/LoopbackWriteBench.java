package org.jrdma.bench;

import java.nio.ByteBuffer;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * hw-loopback RDMA WRITE bandwidth against its ceiling, a plain {@link ByteBuffer} bulk copy of the
 * same sizes over the same buffers and offsets, in the same JVM, at perftest -a's sizes (2 B to 8 MiB).
 * One operation is one message;
 * WRITEs are posted as chains of {@link #BATCH} with the last one signaled, keeping
 * {@link #WINDOW} chains in flight, so the engine thread never waits for the poster.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class LoopbackWriteBench {
    static final int BATCH = 16;
    static final int WINDOW = 4;
    /** Larger than the caches: both sides stream from memory. */
    static final int BUFFER = 64 << 20;

    /** perftest -a: every power of two from 2 B to 8 MiB. */
    @Param({"2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096", "8192", "16384", "32768",
            "65536", "131072", "262144", "524288", "1048576", "2097152", "4194304", "8388608"})
    public int size;

    LoopbackPair pair;
    SendWr[] chain;
    Sge[] sges;
    int offset;
    int inflight;
    ByteBuffer copySrc;
    ByteBuffer copyDst;

    @Setup(Level.Trial)
    public void setup() {
        pair = new LoopbackPair(BUFFER, BATCH * (WINDOW + 1));
        chain = new SendWr[BATCH];
        sges = new Sge[BATCH];
        for (int i = BATCH - 1; i >= 0; i--) {
            sges[i] = new Sge(0, size, pair.src.lkey());
            chain[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sgList(sges[i])
                    .sendFlags(i == BATCH - 1 ? SendFlags.SIGNALED : 0).next(i == BATCH - 1 ? null : chain[i + 1]);
        }
        copySrc = pair.srcBuf;
        copyDst = pair.dstBuf;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.await(inflight);
        pair.close();
    }

    private int nextOffset() {
        int o = offset;
        offset += size;
        if (offset + size > BUFFER) {
            offset = 0;
        }
        return o;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdmaWrite() {
        for (int i = 0; i < BATCH; i++) {
            int o = nextOffset();
            sges[i].addr(pair.src.iova() + o);
            chain[i].remote(pair.dst.iova() + o, pair.dst.rkey());
        }
        pair.a.postSend(chain[0]);
        if (++inflight > WINDOW) {
            pair.await(1);
            inflight--;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void bulkCopyBaseline() {
        for (int i = 0; i < BATCH; i++) {
            int o = nextOffset();
            copyDst.put(o, copySrc, o, size);
        }
    }
}
