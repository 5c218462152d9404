package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class ToolRunsTest {
    private final ToolRuns runs = new ToolRuns();

    /** A tool that ends normally on an interrupt, as ping does on SIGINT. */
    private static void untilInterrupted(CountDownLatch started) {
        started.countDown();
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aToolEndedByInterruptAllIsStatus130EvenWhenItReturnsNormally() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                runs.run(() -> untilInterrupted(started));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        assertTrue(started.await(60, TimeUnit.SECONDS));
        runs.interruptAll();
        t.join(60_000);
        CommandFailure f = (CommandFailure) thrown.get();
        assertEquals(130, f.exitStatus());
        assertEquals("interrupted: the command's bundle is stopping", f.getMessage());
    }

    @Test
    void aToolThatEndsByItselfOrFailsIsLeftAlone() {
        runs.run(() -> { });
        CommandFailure own = new CommandFailure(2, "usage");
        assertEquals(own, assertThrows(CommandFailure.class, () -> runs.run(() -> {
            throw own;
        })));
        runs.interruptAll(); // nobody runs: nothing to interrupt, and the next run is not marked
        runs.run(() -> { });
    }
}
