package org.jrdma.ulp.ipoib.shell;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.cm.ib.IbCm;
import org.jrdma.ib.mad.ManagedIbFabric;
import org.jrdma.ulp.ipoib.OperState;
import org.jrdma.ulp.ipoib.impl.IpoibClient;

/** A tool's run (status, stdout, stderr), and the shell tests' fabric: ib0 and ib1 up on two devices. */
record ToolRun(int status, String out, String err) {
    interface Main {
        int main(PrintStream out, StringBuilder err);
    }

    static ToolRun of(Main main) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int st = main.main(new PrintStream(o, true, StandardCharsets.UTF_8), err);
        return new ToolRun(st, o.toString(StandardCharsets.UTF_8), err.toString());
    }

    /** Two single-port devices, the SM on the first, the ipoib client registered; returns once ib0 and ib1 are up. */
    static IpoibClient twoInterfacesUp(ManagedIbFabric ib) throws InterruptedException {
        return twoInterfacesUp(ib, null);
    }

    /** With an IB CM for connected mode (null: datagram only). */
    static IpoibClient twoInterfacesUp(ManagedIbFabric ib, IbCm ibCm) throws InterruptedException {
        ib.add(1);
        ib.add(1);
        ib.sweptBy(ib.device(0), 0);
        IpoibClient client = ibCm == null ? new IpoibClient(ib.sa()) : new IpoibClient(ib.sa(), ibCm);
        ib.core().registerClient(client);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (client.list().size() < 2 || client.list().stream().anyMatch(i -> i.state() != OperState.UP)) {
            assertTrue(System.nanoTime() < end, "ib0 and ib1 up");
            Thread.sleep(5);
        }
        return client;
    }
}
