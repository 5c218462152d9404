package org.jrdma.ib.cm.shell;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.tools.Rping;
import org.jrdma.ib.core.cli.CommandFailure;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo command {@code rping}: rdma-core's rping with its arguments as words
 * ({@code rping -c -a 192.0.2.11 -C 3 -v}). What rping prints to stdout goes to {@code System.out} as it
 * comes; a failure is a {@link CommandFailure} carrying rping's stderr text and exit status. The command
 * runs on the calling thread until it is done; interrupting that thread (Ctrl-C) ends it with status 130
 * after the connection is disconnected and everything it allocated is released, and so does stopping
 * this bundle.
 */
@Component(service = RpingCommand.class, property = {
    "osgi.command.scope=rdma",
    "osgi.command.function=rping"})
public class RpingCommand {

    @Reference
    RdmaCm cm;

    /** The threads running a command now: interrupted when the component goes away. */
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    public void rping(String... args) {
        Thread self = Thread.currentThread();
        running.add(self);
        try {
            Rping.execute(cm, System.out, System.err, words(args));
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
