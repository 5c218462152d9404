package org.jrdma.ulp.iser.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** coreutils' sleep syntax, its errors, and Ctrl-C (an interrupt) ending it with status 130. */
class SleepCommandTest {
    @Test
    void intervalsAsCoreutilsReadsThem() {
        assertEquals(1_000_000_000L, SleepCommand.nanos("1"));
        assertEquals(500_000_000L, SleepCommand.nanos("0.5s"));
        assertEquals(90_000_000_000L, SleepCommand.nanos("1.5m"));
        assertEquals(3_600_000_000_000L, SleepCommand.nanos("1h"));
        assertEquals(86_400_000_000_000L, SleepCommand.nanos("1d"));
        assertEquals(Long.MAX_VALUE, SleepCommand.nanos("1e30"));
        for (String bad : new String[] {"", "x", "1x", "-1", "s", "1..2"}) {
            assertEquals(-1, SleepCommand.nanos(bad), bad);
        }
        StringBuilder err = new StringBuilder();
        assertEquals(1, SleepCommand.sleep(new String[] {"1", "x"}, err));
        assertEquals("sleep: invalid time interval 'x'\nTry 'sleep --help' for more information.\n", err.toString());
        err.setLength(0);
        assertEquals(1, SleepCommand.sleep(new String[0], err));
        assertEquals("sleep: missing operand\nTry 'sleep --help' for more information.\n", err.toString());
        long t0 = System.nanoTime();
        assertEquals(0, SleepCommand.sleep(new String[] {"0.05", "0.05s"}, new StringBuilder()));
        assertTrue(System.nanoTime() - t0 >= 100_000_000L, "the intervals add up");
    }

    @Test
    void deactivationInterruptsASleep() throws Exception {
        SleepCommand c = new SleepCommand();
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> {
            try {
                c.sleep("600");
                return 0;
            } catch (org.jrdma.ib.core.cli.CommandFailure f) {
                return f.exitStatus();
            }
        });
        Thread.sleep(200);
        c.deactivate();
        assertEquals(130, status.get(10, TimeUnit.SECONDS));
    }
}
