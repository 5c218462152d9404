package org.jrdma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.InvocationTargetException;

import org.jrdma.ib.core.cli.CommandFailure;
import org.junit.jupiter.api.Test;

class FailureTest {

    @Test
    void commandFailurePrintsItsMessageAndExitsWithItsStatus() {
        Failure f = Failure.of(new CommandFailure(2, "ibv_devinfo: device 'foo' not found"));
        assertEquals(2, f.status());
        assertEquals("ibv_devinfo: device 'foo' not found", f.message());
    }

    @Test
    void commandFailureIsFoundInTheCauseChain() {
        Throwable t = new RuntimeException("outer",
                new InvocationTargetException(new CommandFailure(7, "rdma: link 'x' not found")));
        Failure f = Failure.of(t);
        assertEquals(7, f.status());
        assertEquals("rdma: link 'x' not found", f.message());
    }

    @Test
    void commandNotFoundIsPrintedPlainly() {
        Failure f = Failure.of(new IllegalArgumentException("Command not found: xyz"));
        assertEquals(1, f.status());
        assertEquals("Command not found: xyz", f.message());
    }

    @Test
    void anyOtherErrorExitsWithOne() {
        assertEquals(new Failure(1, "jrdma: kaboom"), Failure.of(new IllegalStateException("kaboom")));
        assertEquals(new Failure(1, "jrdma: java.lang.NullPointerException"), Failure.of(new NullPointerException()));
    }

    @Test
    void aCyclicCauseChainTerminates() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertEquals(new Failure(1, "jrdma: a"), Failure.of(a));
    }
}
