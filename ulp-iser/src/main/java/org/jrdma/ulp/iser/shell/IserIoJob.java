package org.jrdma.ulp.iser.shell;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.ulp.iser.IserIoBuffer;
import org.jrdma.ulp.iser.IserSession;

/**
 * One {@code iser_io} run: {@code qd} slots, each with its own buffer, each issuing the next I/O of the range when
 * its last one completes (from the completion), until the range is done or an I/O fails; with {@code --random}
 * the same number of I/Os at random block-aligned offsets of the range.
 */
final class IserIoJob {
    enum Op { WRITE, READ, VERIFY }

    /** What a run moved; {@code failure} is null on success. */
    record Result(String summary, String failure) {
    }

    private final IserSession session;
    private final int lun;
    private final long offset;
    private final long size;
    private final int bs;
    private final int qd;
    private final byte[] pattern;
    private final Op op;
    private final boolean random;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong moved = new AtomicLong();
    private final AtomicLong ios = new AtomicLong();
    private final AtomicLong firstMismatch = new AtomicLong(-1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    IserIoJob(IserSession session, int lun, long offset, long size, int bs, int qd, byte[] pattern, Op op,
            boolean random) {
        this.random = random;
        this.session = session;
        this.lun = lun;
        this.offset = offset;
        this.size = size;
        this.bs = bs;
        this.qd = qd;
        this.pattern = pattern;
        this.op = op;
    }

    Result run() {
        long start = System.nanoTime();
        CompletableFuture<?>[] slots = new CompletableFuture<?>[(int) Math.min(qd, Math.max(1, size / bs))];
        // each slot's memory registered once: the target moves the bytes in and out of it with no copy (ib_iser)
        IserIoBuffer[] memory = new IserIoBuffer[slots.length];
        try {
            for (int i = 0; i < slots.length; i++) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                slots[i] = done;
                memory[i] = session.allocateBuffer(bs);
                issue(memory[i], new long[] {-1}, done);
            }
            Iscsiadm.await(CompletableFuture.allOf(slots));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        } finally {
            for (IserIoBuffer m : memory) {
                if (m != null) {
                    m.close();
                }
            }
        }
        double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
        String summary = String.format(Locale.ROOT, "%s%s: %d bytes in %d I/Os of %d bytes at QD %d: %.4f s, %.1f MB/s,"
                + " %.0f IOPS", random ? "random " : "", op.name().toLowerCase(Locale.ROOT), moved.get(), ios.get(),
                bs, qd, seconds, moved.get() / seconds / 1e6, ios.get() / seconds);
        if (op == Op.VERIFY && failure.get() == null) {
            long at = firstMismatch.get();
            summary += at < 0 ? "\nverify: OK (" + moved.get() + " bytes match pattern "
                    + java.util.HexFormat.of().formatHex(pattern) + ")" : "\nverify: MISMATCH at byte " + at;
        }
        Throwable f = failure.get();
        String why = f != null ? f.getMessage() : firstMismatch.get() >= 0 ? "verify failed" : null;
        return new Result(summary, why);
    }

    /** Takes the next chunk of the range for this slot, or completes the slot when none is left. */
    private void issue(IserIoBuffer memory, long[] filledPhase, CompletableFuture<Void> slot) {
        ByteBuffer buf = memory.buffer();
        long at = next.getAndAdd(bs);
        if (at >= size || failure.get() != null) {
            slot.complete(null);
            return;
        }
        if (random) { // as many I/Os, each at a bs-aligned offset drawn uniformly from the range
            at = java.util.concurrent.ThreadLocalRandom.current().nextLong(size / bs) * bs;
        }
        long byteOffset = offset + at;
        long lba = byteOffset / session.blockSize(lun);
        int blocks = bs / session.blockSize(lun);
        CompletableFuture<Void> io;
        if (op == Op.WRITE) {
            long phase = byteOffset % pattern.length;
            if (phase != filledPhase[0]) { // a write leaves its buffer as it was: fill once per pattern phase
                IserIo.fill(buf, pattern, byteOffset);
                filledPhase[0] = phase;
            }
            io = session.write(lun, lba, blocks, memory, 0);
        } else {
            io = session.read(lun, lba, blocks, memory, 0);
        }
        // an I/O already done would run its follower on this stack: go through the pool instead of recursing
        java.util.function.BiConsumer<Void, Throwable> then = (v, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e.getCause() != null ? e.getCause() : e);
                slot.complete(null);
                return;
            }
            if (op == Op.VERIFY) {
                check(buf, byteOffset);
            }
            moved.addAndGet(bs);
            ios.incrementAndGet();
            issue(memory, filledPhase, slot);
        };
        if (io.isDone()) {
            io.whenCompleteAsync(then);
        } else {
            io.whenComplete(then);
        }
    }

    private void check(ByteBuffer buf, long byteOffset) {
        for (int i = 0; i < bs; i++) {
            if (buf.get(i) != pattern[(int) ((byteOffset + i) % pattern.length)]) {
                long at = byteOffset + i;
                firstMismatch.accumulateAndGet(at, (a, b) -> a < 0 ? b : Math.min(a, b));
                return;
            }
        }
    }
}
