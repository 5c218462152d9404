package org.jrdma.ib.tools.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;

/** The Gogo component outside OSGi: a failing tool is a CommandFailure with the real text and status. */
class ToolCommandsTest {
    @Test
    void failureCarriesStderrAndStatus() {
        ToolCommands c = new ToolCommands();
        c.core = IbCore.newInstance();
        CommandFailure f = assertThrows(CommandFailure.class, () -> c.ibv_rc_pingpong("-d", "foo"));
        assertEquals(1, f.exitStatus());
        assertEquals("IB device foo not found", f.getMessage());
        f = assertThrows(CommandFailure.class, () -> c.ibv_ud_pingpong((String[]) null));
        assertEquals("No IB devices found", f.getMessage());
        f = assertThrows(CommandFailure.class, () -> c.ibv_srq_pingpong("-q", "300", "-r", "1000"));
        assertEquals("num_qp 300 must be less than 255", f.getMessage());
        f = assertThrows(CommandFailure.class, () -> c.ibv_uc_pingpong("-z"));
        assertEquals("ibv_uc_pingpong: invalid option -- 'z'", f.getMessage());
    }
}
