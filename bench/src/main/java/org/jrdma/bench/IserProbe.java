package org.jrdma.bench;

import java.util.Map;

/**
 * {@link IserBench}'s loads outside JMH, with the CPU time per I/O of each thread role: what to look at when the
 * shared machine is too loaded for throughput to mean much (CPU per I/O moves far less with the load).
 * {@code java -cp bench/target/benchmarks.jar org.jrdma.bench.IserProbe read|write|rand SECONDS [registered|copy]}
 */
public final class IserProbe {
    private IserProbe() {
    }

    public static void main(String[] args) throws Exception {
        String load = args[0];
        long ns = Long.parseLong(args[1]) * 1_000_000_000L;
        String buf = args.length > 2 ? args[2] : "registered";
        IserBench bench = new IserBench();
        IserBench.Io state;
        Runnable op;
        int size;
        if (load.equals("rand")) {
            IserBench.Rand r = new IserBench.Rand();
            r.buf = buf;
            r.setup();
            state = r;
            size = IserBench.Rand.BS;
            op = () -> uncheck(() -> bench.randRead(r));
        } else {
            IserBench.Seq s = new IserBench.Seq();
            s.rw = load.equals("read") ? "READ" : "WRITE";
            s.buf = buf;
            s.setup();
            state = s;
            size = IserBench.Seq.BS;
            op = () -> uncheck(() -> bench.seq(s));
        }
        for (long end = System.nanoTime() + ns / 3; System.nanoTime() < end;) { // warm-up
            op.run();
        }
        Map<String, Long> cpu0 = RxeWriteProbe.threadCpu();
        long c0 = RxeWriteProbe.processCpu();
        long t0 = System.nanoTime();
        long ios = 0;
        for (long end = t0 + ns; System.nanoTime() < end; ios++) {
            op.run();
        }
        long nanos = System.nanoTime() - t0;
        long cpu = RxeWriteProbe.processCpu() - c0;
        Map<String, Double> us = RxeWriteProbe.perMessage(cpu0, RxeWriteProbe.threadCpu(), ios, 1e3, 0.5);
        us.remove("");
        double sec = nanos / 1e9;
        StringBuilder sb = new StringBuilder(String.format("%s (%s): %.0f IOPS, %.1f MB/s, process CPU %.1f us per I/O "
                + "(%.2f cores); by thread:", load, buf, ios / sec, ios * (double) size / sec / 1e6, cpu / 1e3 / ios,
                cpu / 1e9 / sec));
        us.forEach((k, v) -> sb.append(String.format(" %s %.1f;", k, v)));
        System.out.println(sb);
        state.close();
        System.exit(0);
    }

    private interface Op {
        void run() throws Exception;
    }

    private static void uncheck(Op op) {
        try {
            op.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
