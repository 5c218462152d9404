package org.jrdma.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jrdma.ulp.iser.IserIoBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * iSER block I/O, jrdma initiator to jrdma target ({@link IserFabric}: hw-rxe on 127.x, ramdisk LUN), queue depth
 * {@link #QD} kept full: one operation takes a free slot (waiting, asleep, for a completion to free one), issues
 * that slot's I/O and returns; the I/O's completion frees the slot. The score is I/Os per second, so the 1 MiB
 * score times 1 MiB is the bandwidth.
 * <ul>
 * <li>{@link #seq}: 1 MiB sequential READ or WRITE over the LUN ({@code rw}); the target moves the data with one
 * RDMA WRITE (READ) or RDMA READ (WRITE, after the immediate bytes), so its baselines are
 * {@code RxeBandwidthBench.rdma} WRITE and READ at 1 MiB in the same run.</li>
 * <li>{@link #randRead}: 4 KiB random READ (aligned, uniform over the LUN), three messages per I/O (command
 * SEND, RDMA WRITE, response SEND); its baseline is the 4 KiB SEND message rate.</li>
 * </ul>
 * {@code buf} picks zero-copy registered buffers (the default) or the copying ByteBuffer API ({@code -p buf=copy}).
 * The parameters are not named {@code op}/{@code size} so that one JMH run's {@code -p op=..} for the
 * baselines does not multiply these.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class IserBench {
    static final int QD = 32;
    static final long LUN_BYTES = 64L << 20;

    /** The fabric, the session and {@link #QD} slots, each with its own caller buffer of {@code bs} bytes. */
    public abstract static class Io {
        IserFabric fabric;
        final BlockingQueue<Integer> free = new ArrayBlockingQueue<>(QD);
        final ByteBuffer[] buffers = new ByteBuffer[QD];
        final IserIoBuffer[] registered = new IserIoBuffer[QD];
        final AtomicReference<Throwable> failed = new AtomicReference<>();

        final int bs;

        Io(int bs) {
            this.bs = bs;
        }

        /**
         * {@code registered}: each slot's buffer from {@link org.jrdma.ulp.iser.IserSession#allocateBuffer}, the
         * target's RDMA ops move the bytes straight in and out (zero-copy, as ib_iser); {@code copy}: a plain direct
         * ByteBuffer the initiator copies through its own registered buffers (the {@code buf} parameter).
         */
        abstract String buf();

        @Setup(Level.Trial)
        public void setup() throws Exception {
            fabric = new IserFabric(LUN_BYTES);
            for (int i = 0; i < QD; i++) {
                if (buf().equals("registered")) {
                    registered[i] = fabric.session.allocateBuffer(bs);
                } else {
                    buffers[i] = ByteBuffer.allocateDirect(bs);
                }
                free.add(i);
            }
        }

        /** The next free slot; rethrows an I/O's failure rather than measuring around it. */
        int take() throws InterruptedException {
            Integer slot = free.poll(30, TimeUnit.SECONDS);
            Throwable t = failed.get();
            if (t != null || slot == null) {
                throw new IllegalStateException(t == null ? "no I/O completed in 30 s" : "I/O failed: " + t, t);
            }
            return slot;
        }

        /** Waits for a free slot and issues its I/O of {@code bs} bytes at {@code lba}; the slot's number. */
        int issue(boolean read, long lba) throws InterruptedException {
            int slot = take();
            int blocks = bs / IserFabric.BLOCK;
            var session = fabric.session;
            IserIoBuffer r = registered[slot];
            var io = r != null
                    ? read ? session.read(0, lba, blocks, r, 0) : session.write(0, lba, blocks, r, 0)
                    : read ? session.read(0, lba, blocks, buffers[slot].clear())
                            : session.write(0, lba, blocks, buffers[slot].clear());
            io.whenComplete((v, t) -> {
                if (t != null) {
                    failed.compareAndSet(null, t);
                }
                free.add(slot);
            });
            return slot;
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            for (int i = 0; i < QD; i++) { // every I/O ended before the session goes
                if (free.poll(30, TimeUnit.SECONDS) == null) {
                    break;
                }
            }
            for (IserIoBuffer r : registered) {
                if (r != null) {
                    r.close();
                }
            }
            fabric.close();
        }
    }

    @State(Scope.Thread)
    public static class Seq extends Io {
        static final int BS = 1 << 20;
        @Param({"READ", "WRITE"})
        public String rw;
        @Param({"registered"})
        public String buf = "registered";
        long next;

        public Seq() {
            super(BS);
        }

        @Override
        String buf() {
            return buf;
        }
    }

    /** 1 MiB sequential READ or WRITE at queue depth 32 (wraps at the LUN's end). */
    @Benchmark
    public int seq(Seq s) throws InterruptedException {
        int slot = s.issue(s.rw.equals("READ"), s.next);
        s.next = (s.next + Seq.BS / IserFabric.BLOCK) % (LUN_BYTES / IserFabric.BLOCK);
        return slot;
    }

    @State(Scope.Thread)
    public static class Rand extends Io {
        static final int BS = 4096;
        final SplittableRandom random = new SplittableRandom(14);
        @Param({"registered"})
        public String buf = "registered";

        public Rand() {
            super(BS);
        }

        @Override
        String buf() {
            return buf;
        }
    }

    /** 4 KiB random READ at queue depth 32. */
    @Benchmark
    public int randRead(Rand s) throws InterruptedException {
        return s.issue(true, s.random.nextLong(LUN_BYTES / Rand.BS) * (Rand.BS / IserFabric.BLOCK));
    }
}
