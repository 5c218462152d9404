package org.jrdma.itest;

import static org.jrdma.itest.Waits.settle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

/** What every hot-unplug test asserts about a {@link TrafficSession} that a driver's removal ended. */
final class TrafficChecks {
    private TrafficChecks() {
    }

    /** Every completion was one somebody posted, with the right data, and only flushes failed. */
    static void assertNoErrors(TrafficSession s) {
        assertEquals(0, s.unknown(), "completions nobody posted (or twice): " + s);
        assertEquals(0, s.mismatches(), "data or completion mismatches: " + s);
        assertEquals(0, s.otherErrors(), "error completions other than flushes: " + s);
        assertEquals(List.of(), s.problems, "problems: " + s);
    }

    /**
     * remove stopped the session's threads while they ran, and every posted WR completed exactly once
     * (success or WR_FLUSH_ERR); nothing reached the client after remove's drain.
     */
    static void assertDrained(TrafficSession s, String what) {
        assertTrue(s.threadsAliveAtClose, what + "the traffic threads were running when remove came");
        assertTrue(s.threadsJoined, what + "the traffic threads ended within remove: " + s);
        assertFalse(s.anyThreadAlive(), what + "traffic threads alive");
        for (String why : s.endReasons()) {
            assertEquals("stopped by remove", why, what + "why a traffic thread ended: " + s);
        }
        assertTrue(s.drainComplete, what + "drained: " + s);
        assertEquals(0, s.outstanding(), what + "work requests that never completed: " + s);
        assertNoErrors(s);
        assertEquals(s.posted(), s.successes() + s.flushed(), what + "successes + flushes == posted: " + s);
        assertTrue(s.flushedRecvs() > 0, what + "the posted receives flushed with WR_FLUSH_ERR: " + s);
        settle();
        assertEquals(s.completedAtClose, s.completed(), what + "completions after remove's drain");
        assertEquals(0, s.afterDrain.get(), what + "completion handler calls after the drain");
        assertEquals(0, s.afterClose.get(), what + "completion handler calls after remove returned");
    }
}
