package org.jrdma.perftest.shell;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
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
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

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
        Thread self = Thread.currentThread();
        running.add(self);
        try {
            Perftest.named(name).execute(core, cm, System.out, System.err, words(args));
        } finally {
            running.remove(self);
        }
    }

    @Deactivate
    void deactivate() {
        for (Thread t : running) {
            t.interrupt();
        }
    }

    /** Gogo evaluates the word {@code null} to null: give the tool the word back. */
    private static String[] words(String[] args) {
        if (args == null) {
            return new String[0];
        }
        String[] w = args.clone();
        for (int i = 0; i < w.length; i++) {
            if (w[i] == null) {
                w[i] = "null";
            }
        }
        return w;
    }
}
