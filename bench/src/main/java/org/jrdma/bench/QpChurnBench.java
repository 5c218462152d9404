package org.jrdma.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.loopback.LoopbackDevice;
import org.jrdma.hw.loopback.LoopbackFabric;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * QP create, modify to INIT and destroy, one op each, on a loopback device that already holds {@code live} QPs.
 * The baseline is the same churn on an empty device (live=0): with create and destroy in constant time the ratio
 * stays near 1 (a tester measured 1-2 ms per create growing with the count, 14 s to destroy 16,000 QPs, when the
 * QPN table was rebuilt on each).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class QpChurnBench {
    @Param({"0", "10000"})
    int live;

    private final IbCore core = IbCore.newInstance();
    private LoopbackDevice lo;
    private ProtectionDomain pd;
    private QpInitAttr init;
    private final List<QueuePair> held = new ArrayList<>();

    @Setup
    public void setup() {
        lo = new LoopbackDevice(LoopbackFabric.INSTANCE, "churn%d", 1, 0);
        IbDevice dev = lo.register(core.registrar()).device();
        pd = dev.allocPd(LoopbackPair.OWNER);
        CompletionQueue cq = dev.createCq(LoopbackPair.OWNER, new CqInitAttr().cqe(16));
        init = new QpInitAttr().qpType(QpType.RC).cq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1));
        for (int i = 0; i < live; i++) {
            held.add(pd.createQp(init));
        }
    }

    @TearDown
    public void close() {
        held.forEach(QueuePair::destroy);
        lo.close();
    }

    @Benchmark
    public int createModifyDestroy() {
        QueuePair qp = pd.createQp(init);
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(Access.REMOTE_WRITE));
        int n = qp.qpNum();
        qp.destroy();
        return n;
    }
}
