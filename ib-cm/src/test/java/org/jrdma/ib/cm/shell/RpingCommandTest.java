package org.jrdma.ib.cm.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;

/** The Gogo command: rping's failures as CommandFailures, the word {@code null} given back. */
class RpingCommandTest {
    @Test
    void aBadSizeFailsWithRpingsTextAndStatus() {
        RpingCommand c = new RpingCommand();
        c.cm = (handler, ps) -> {
            throw new AssertionError("the CM was used");
        };
        CommandFailure f = assertThrows(CommandFailure.class, () -> c.rping("-c", "-S", "1"));
        assertEquals(22, f.exitStatus());
        assertEquals("Invalid size 1 (valid range is 23 to 65536)", f.getMessage());
        // Gogo turns the word null into null: rping sees "null" as a size, atoi gives 0
        f = assertThrows(CommandFailure.class, () -> c.rping("-c", "-S", null));
        assertEquals("Invalid size 0 (valid range is 23 to 65536)", f.getMessage());
    }
}
