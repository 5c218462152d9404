package org.jrdma.itest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.osgi.test.common.service.ServiceAware;

/**
 * Bounded waits shared by the in-framework tests: service and bundle events are asynchronous in
 * places, so a test polls for what it expects and fails after {@link #TIMEOUT_MS}, never sleeps
 * without a bound.
 */
final class Waits {
    static final long TIMEOUT_MS = 5000;
    /** How long a test watches for callbacks that must not come. */
    static final long SETTLE_MS = 50;

    private Waits() {
    }

    static void settle() {
        try {
            Thread.sleep(SETTLE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Bounded polling: fails after {@link #TIMEOUT_MS}. */
    static void await(String what, BooleanSupplier condition) {
        await(() -> what, condition);
    }

    static void await(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + TIMEOUT_MS + " ms waiting for " + what.get());
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Bounded polling for a value; on timeout, assertEquals shows the difference. */
    static <T> void awaitValue(String what, Supplier<T> expected, Supplier<T> actual) {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (!expected.get().equals(actual.get()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        assertEquals(expected.get(), actual.get(), what);
    }

    static <S> S waitFor(ServiceAware<S> aware, String what) {
        try {
            S s = aware.waitForService(TIMEOUT_MS);
            assertNotNull(s, "no " + what + " service within " + TIMEOUT_MS + " ms");
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
