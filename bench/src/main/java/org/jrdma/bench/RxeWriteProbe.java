package org.jrdma.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

import org.jrdma.hw.rxe.net.RxeNetCounter;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;

/**
 * A diagnostic twin of {@code RxeBandwidthBench} (not JMH): the same WRITE chains (16 messages, last
 * signaled, 4 chains in flight) or the same UDP blast, for a given time, reporting what a JMH score hides:
 * <ul>
 * <li>stalls: gaps of more than 20 ms between two chain completions, and the longest (a retransmission after
 * the ACK timeout shows as a gap of 67 ms or more);</li>
 * <li>CPU per message: of the whole JVM, and of the transport and engine threads alone (the event loops,
 * {@code rxe-net-*} / {@code multiThreadIoEventLoopGroup-*}, and {@code rxe-engine-*}), without the
 * benchmark thread, which spins on the CQ or on the UDP window. On a host shared with other work this is
 * steadier than the throughput;</li>
 * <li>rxe's counters, the wires' packet counts and the datagrams the kernel dropped at each socket.</li>
 * </ul>
 * Usage: {@code java -Xms1g -Xmx1g -cp bench/target/benchmarks.jar org.jrdma.bench.RxeWriteProbe rxe|udp SIZE
 * SECONDS}. The first second is warm-up and not counted.
 */
public final class RxeWriteProbe {
    private static final long WARMUP_NS = 1_000_000_000L;

    private RxeWriteProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: RxeWriteProbe rxe|rxe-e|udp SIZE SECONDS");
            System.exit(2);
        }
        int size = Integer.parseInt(args[1]);
        long ns = Long.parseLong(args[2]) * 1_000_000_000L;
        if (args[0].equals("udp")) {
            udp(size, ns);
        } else {
            rxe(size, ns, args[0].equals("rxe-e"), !args[0].equals("rxe-spin"));
        }
        System.exit(0);
    }

    static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** CPU time of the transport's event loops and rxe's engine threads. */
    static long stackCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (ti == null) {
                continue;
            }
            String n = ti.getThreadName();
            if (n.startsWith("rxe-net") || n.startsWith("rxe-engine") || n.startsWith("multiThreadIoEventLoopGroup")) {
                sum += Math.max(0, mx.getThreadCpuTime(ti.getThreadId()));
            }
        }
        return sum;
    }

    /** Bytes each live thread has allocated so far, by thread name and id. */
    static java.util.Map<String, Long> allocated() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return byThread(mx::getThreadAllocatedBytes);
    }

    /** CPU time each live thread has used so far, by thread name and id. */
    static java.util.Map<String, Long> threadCpu() {
        return byThread(ManagementFactory.getThreadMXBean()::getThreadCpuTime);
    }

    /** A reading of each live thread ({@code name#id}; a thread gone, or a reading of -1, left out). */
    private static java.util.Map<String, Long> byThread(java.util.function.LongUnaryOperator reading) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        java.util.Map<String, Long> m = new java.util.HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            ThreadInfo ti = mx.getThreadInfo(id);
            long v = reading.applyAsLong(id);
            if (ti != null && v >= 0) {
                m.put(ti.getThreadName() + "#" + id, v);
            }
        }
        return m;
    }

    /**
     * {@code (after - before) / msgs / unit} of each thread role (the threads' names without their id and a device's
     * hex suffix, summed), those of at least {@code min}; the total of all threads under the key "".
     */
    static java.util.Map<String, Double> perMessage(java.util.Map<String, Long> before,
            java.util.Map<String, Long> after, long msgs, double unit, double min) {
        java.util.Map<String, Double> per = new java.util.TreeMap<>();
        double all = 0;
        for (var e : after.entrySet()) {
            double v = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / unit / msgs;
            all += v;
            if (v >= min) {
                per.merge(e.getKey().replaceAll("#[0-9]+$", "").replaceAll("-[0-9a-f]{6,}$", "-*"), v, Double::sum);
            }
        }
        per.put("", all);
        return per;
    }

    private static void report(String what, int size, long msgs, long nanos, long cpu, long stack) {
        double sec = nanos / 1e9;
        System.out.printf("%s %d B: %.0f msg/s, %.1f MB/s; CPU per message %.1f us (%.2f cores), transport and engine "
                + "threads %.1f us%n", what, size, msgs / sec, msgs * (double) size / sec / 1e6, cpu / 1e3 / msgs,
                cpu / 1e9 / sec, stack / 1e3 / msgs);
    }

    /**
     * The measured part of a run: it starts {@link #WARMUP_NS} after the run and lasts {@code ns}; messages,
     * time and CPU are taken at both ends.
     */
    private static final class Window {
        final long start = System.nanoTime();
        final long end;
        long t0;
        long m0;
        long c0;
        long s0;
        long msgs;
        long nanos;
        long cpu;
        long stack;
        java.util.Map<String, Long> alloc0;
        java.util.Map<String, Long> alloc;
        java.util.Map<String, Long> cpu0;
        java.util.Map<String, Long> cpus;

        Window(long ns) {
            end = start + WARMUP_NS + ns;
        }

        /** False once the run is over; at the end of the warm-up it marks where the measurement starts. */
        boolean next(long sent) {
            long now = System.nanoTime();
            if (now - end > 0) {
                return false;
            }
            if (t0 == 0 && now - start > WARMUP_NS) {
                t0 = now;
                m0 = sent;
                c0 = processCpu();
                s0 = stackCpu();
                alloc0 = allocated();
                cpu0 = threadCpu();
            }
            return true;
        }

        boolean measuring() {
            return t0 != 0;
        }

        void stop(long sent) {
            nanos = System.nanoTime() - t0;
            cpu = processCpu() - c0;
            stack = stackCpu() - s0;
            msgs = sent - m0;
            alloc = allocated();
            cpus = threadCpu();
        }

        void report(String what, int size) {
            RxeWriteProbe.report(what, size, msgs, nanos, cpu, stack);
            java.util.Map<String, Double> bytes = perMessage(alloc0, alloc, msgs, 1, 0.05);
            StringBuilder sb = new StringBuilder(String.format("allocated per message: %.1f B in all", bytes.remove("")));
            bytes.forEach((k, v) -> sb.append(String.format("; %s %.1f B", k, v)));
            System.out.println(sb);
            java.util.Map<String, Double> us = perMessage(cpu0, cpus, msgs, 1e3, 0.5);
            us.remove("");
            StringBuilder sc = new StringBuilder("CPU per message by thread:");
            us.forEach((k, v) -> sc.append(String.format(" %s %.1f us;", k, v)));
            System.out.println(sc);
        }
    }

    /** @param events wait for completions by event ({@link CqEvents}, perftest's -e) instead of polling */
    static void rxe(int size, long ns, boolean events, boolean yield) {
        int batch = RxeBandwidthBench.BATCH;
        int window = RxeBandwidthBench.WINDOW;
        CqEvents ev = events ? new CqEvents() : null;
        RxePair pair = new RxePair(RxeBandwidthBench.BUFFER, batch * (window + 1), ev, null, 1);
        if (ev != null) {
            ev.arm(pair.a.cq);
        }
        SendWr[] chain = new SendWr[batch];
        Sge[] sges = new Sge[batch];
        for (int i = batch - 1; i >= 0; i--) {
            sges[i] = new Sge(0, size, pair.a.mr.lkey());
            chain[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sgList(sges[i])
                    .sendFlags(i == batch - 1 ? SendFlags.SIGNALED : 0).next(i == batch - 1 ? null : chain[i + 1]);
        }
        int[] offset = {0};
        int inflight = 0;
        long msgs = 0;
        Window w = new Window(ns);
        long last = w.start;
        long stalls = 0;
        long stalled = 0;
        long maxGap = 0;
        while (true) {
            boolean warm = w.measuring();
            if (!w.next(msgs)) {
                break;
            }
            if (!warm && w.measuring()) {
                last = w.t0;
            }
            for (int i = 0; i < batch; i++) {
                long o = RxeBandwidthBench.advance(offset, size);
                sges[i].addr(pair.a.mr.iova() + o);
                chain[i].remote(pair.b.mr.iova() + o, pair.b.mr.rkey());
            }
            if (inflight == window) {
                if (ev != null) {
                    ev.await(1);
                } else {
                    LoopbackPair.await(pair.a.cq, pair.a.wc, 1, yield);
                }
                inflight--;
                long done = System.nanoTime();
                long gap = done - last;
                last = done;
                if (w.measuring()) {
                    if (gap > 20_000_000L) {
                        stalls++;
                        stalled += gap;
                    }
                    maxGap = Math.max(maxGap, gap);
                }
            }
            pair.a.qp.postSend(chain[0]);
            inflight++;
            msgs += batch;
        }
        w.stop(msgs);
        if (ev != null) {
            ev.await(inflight);
        } else {
            pair.a.await(inflight);
        }
        w.report(events ? "rxe WRITE (events)" : "rxe WRITE", size);
        System.out.printf("chains completing more than 20 ms after the previous one: %d (%.0f ms in all), longest gap "
                + "%.1f ms%n", stalls, stalled / 1e6, maxGap / 1e6);
        System.out.printf("wire a: sent %d, received %d; wire b: sent %d, received %d%n", pair.ra.wire().counter(RxeNetCounter.SENT),
                pair.ra.wire().counter(RxeNetCounter.RECEIVED), pair.rb.wire().counter(RxeNetCounter.SENT), pair.rb.wire().counter(RxeNetCounter.RECEIVED));
        pair.close(); // prints the counters, with the sockets' drops
    }

    static void udp(int size, long ns) throws Exception {
        RxeBandwidthBench.Udp s = new RxeBandwidthBench.Udp();
        s.size = size;
        s.setup();
        RxeBandwidthBench bench = new RxeBandwidthBench();
        Window w = new Window(ns);
        long msgs = 0;
        while (w.next(msgs)) {
            bench.udpBlast(s);
            msgs++;
        }
        w.stop(msgs);
        w.report("UDP blast", size);
        s.tearDown();
    }
}
