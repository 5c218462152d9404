package org.jrdma.ulp.iser.initiator;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What the initiator's tests share: a bounded wait and reproducible data. */
final class TestIo {
    private TestIo() {
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    /** {@code n} pseudo-random bytes, the same for the same seed. */
    static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
