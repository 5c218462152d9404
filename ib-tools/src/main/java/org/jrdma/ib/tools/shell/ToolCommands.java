package org.jrdma.ib.tools.shell;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolRuns;
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
    private final ToolRuns runs = new ToolRuns();

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
        runs.run(() -> PingpongTool.named(name).execute(core, System.out, System.err, ToolRuns.words(args)));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }
}
