package org.jrdma.ib.tools.shell;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.tools.PingpongTool;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong}, {@code ibv_ud_pingpong} and
 * {@code ibv_srq_pingpong}. Each takes the real tool's arguments as words
 * ({@code ibv_rc_pingpong -d lo0 -i 2 -c 127.0.0.1}), prints what the real tool prints to stdout on
 * {@code System.out} as it goes, and fails with a {@link CommandFailure} carrying the real tool's
 * stderr text and exit status. A command runs on the calling thread until it is done; interrupting
 * that thread (Ctrl-C) ends it with status 130 after everything it allocated is released, and so
 * does stopping this bundle.
 */
@Component(service = ToolCommands.class, property = {
    "osgi.command.scope=rdma",
    "osgi.command.function=ibv_rc_pingpong",
    "osgi.command.function=ibv_uc_pingpong",
    "osgi.command.function=ibv_ud_pingpong",
    "osgi.command.function=ibv_srq_pingpong"})
public class ToolCommands {

    @Reference
    IbCore core;

    /** The threads running a command now: interrupted when the component goes away. */
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    public void ibv_rc_pingpong(String... args) {
        run("ibv_rc_pingpong", args);
    }

    public void ibv_uc_pingpong(String... args) {
        run("ibv_uc_pingpong", args);
    }

    public void ibv_ud_pingpong(String... args) {
        run("ibv_ud_pingpong", args);
    }

    public void ibv_srq_pingpong(String... args) {
        run("ibv_srq_pingpong", args);
    }

    private void run(String name, String[] args) {
        Thread self = Thread.currentThread();
        running.add(self);
        try {
            PingpongTool.named(name).execute(core, System.out, System.err, words(args));
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
