package org.jrdma.ulp.iser.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import org.jrdma.ulp.iser.IserSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What the initiator's tests share: a bounded wait and reproducible data. */
final class TestIo {
    private TestIo() {
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    /** Writes and reads back one I/O of each size on LUN 0 from {@code lba} on, one after the other. */
    static void writeReadBack(IserSession s, long lba, int... sizes) throws Exception {
        for (int size : sizes) {
            int blocks = size / s.blockSize(0);
            byte[] data = pattern(size, size);
            await(s.write(0, lba, blocks, ByteBuffer.wrap(data)));
            ByteBuffer back = ByteBuffer.allocate(size);
            await(s.read(0, lba, blocks, back));
            assertArrayEquals(data, back.array(), size + " bytes at LBA " + lba);
            lba += blocks;
        }
    }

    /** {@code n} pseudo-random bytes, the same for the same seed. */
    static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
