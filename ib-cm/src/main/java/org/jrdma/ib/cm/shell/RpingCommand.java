package org.jrdma.ib.cm.shell;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.tools.Rping;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.ToolRuns;
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
    private final ToolRuns runs = new ToolRuns();

    public void rping(String... args) {
        runs.run(() -> Rping.execute(cm, System.out, System.err, ToolRuns.words(args)));
    }

    @Deactivate
    void deactivate() {
        runs.interruptAll();
    }
}
