package org.jrdma.perftest.shell;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolRuns;
import org.jrdma.perftest.Perftest;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Gogo commands {@code ib_write_bw}, {@code ib_write_lat}, {@code ib_read_bw}, {@code ib_read_lat},
 * {@code ib_send_bw}, {@code ib_send_lat}, {@code ib_atomic_bw} and {@code ib_atomic_lat}. Each takes
 * perftest's arguments as words ({@code ib_write_bw -d rxe0 -x 1 192.0.2.2}), prints what perftest
 * prints to stdout on {@code System.out} as it goes, and fails with a {@link CommandFailure} carrying
 * perftest's stderr text and exit status. The RDMA CM is optional: without ib-cm every option but
 * {@code -R} works. Interrupting the calling thread (Ctrl-C), or stopping this bundle, ends a run
 * with status 130 after everything it allocated is released.
 */
@Component(service = PerftestCommands.class, property = {
    "osgi.command.scope=rdma",
    "osgi.command.function=ib_write_bw",
    "osgi.command.function=ib_write_lat",
    "osgi.command.function=ib_read_bw",
    "osgi.command.function=ib_read_lat",
    "osgi.command.function=ib_send_bw",
    "osgi.command.function=ib_send_lat",
    "osgi.command.function=ib_atomic_bw",
    "osgi.command.function=ib_atomic_lat"})
public class PerftestCommands {

    @Reference
    IbCore core;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile RdmaCm cm;

    /** The threads running a command now: interrupted when the component goes away. */
    private final ToolRuns runs = new ToolRuns();

    public void ib_write_bw(String... args) {
        run("ib_write_bw", args);
    }

    public void ib_write_lat(String... args) {
        run("ib_write_lat", args);
    }

    public void ib_read_bw(String... args) {
        run("ib_read_bw", args);
    }

    public void ib_read_lat(String... args) {
        run("ib_read_lat", args);
    }

    public void ib_send_bw(String... args) {
        run("ib_send_bw", args);
    }

    public void ib_send_lat(String... args) {
        run("ib_send_lat", args);
    }

    public void ib_atomic_bw(String... args) {
        run("ib_atomic_bw", args);
    }

    public void ib_atomic_lat(String... args) {
        run("ib_atomic_lat", args);
    }

    private void run(String name, String[] args) {
        runs.run(() -> Perftest.named(name).execute(core, cm, System.out, System.err, ToolRuns.words(args)));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }
}
