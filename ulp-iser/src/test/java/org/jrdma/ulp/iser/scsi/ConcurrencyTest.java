package org.jrdma.ulp.iser.scsi;

import static org.jrdma.ulp.iser.scsi.Scsi.cdb10;
import static org.jrdma.ulp.iser.scsi.Scsi.in;
import static org.jrdma.ulp.iser.scsi.Scsi.out;
import static org.jrdma.ulp.iser.scsi.Scsi.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writers on different ranges at once: 8 threads, each owning one 8 KiB slice of every 64 KiB chunk, so they
 * race to allocate the same ramdisk chunks; every slice must read back as its owner last wrote it.
 */
class ConcurrencyTest {
    private static final int THREADS = 8;
    private static final int CHUNKS = 32;
    private static final int ROUNDS = 3;
    private static final int SLICE_BLOCKS = 16;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Stores.class)
    void writersOnDifferentRangesDoNotDisturbEachOther(Stores kind) throws Exception {
        LunTable t = kind.table(dir, 64L << 20, false);
        CountDownLatch start = new CountDownLatch(1);
        List<Callable<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < THREADS; w++) {
            int writer = w;
            writers.add(() -> {
                start.await(10, TimeUnit.SECONDS);
                int ok = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    for (int chunk = 0; chunk < CHUNKS; chunk++) {
                        long lba = chunk * 128L + writer * SLICE_BLOCKS;
                        byte[] data = pattern(SLICE_BLOCKS * 512, seed(writer, chunk, round));
                        ok += out(t, 0, cdb10(0x2a, lba, SLICE_BLOCKS), data).status() == ScsiResult.GOOD ? 1 : 0;
                    }
                }
                return ok;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (Callable<Integer> c : writers) {
                results.add(pool.submit(c));
            }
            start.countDown();
            for (Future<Integer> f : results) {
                assertEquals(ROUNDS * CHUNKS, f.get(60, TimeUnit.SECONDS), "every write GOOD");
            }
        } finally {
            pool.shutdownNow();
        }
        for (int chunk = 0; chunk < CHUNKS; chunk++) {
            byte[] all = in(t, 0, cdb10(0x28, chunk * 128L, 128), 65536).good().data();
            for (int w = 0; w < THREADS; w++) {
                byte[] slice = java.util.Arrays.copyOfRange(all, w * SLICE_BLOCKS * 512, (w + 1) * SLICE_BLOCKS * 512);
                assertArrayEquals(pattern(SLICE_BLOCKS * 512, seed(w, chunk, ROUNDS - 1)), slice,
                        "chunk " + chunk + " writer " + w);
            }
        }
    }

    private static int seed(int writer, int chunk, int round) {
        return writer * 1000 + chunk * 10 + round;
    }
}
