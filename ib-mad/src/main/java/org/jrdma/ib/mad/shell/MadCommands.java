package org.jrdma.ib.mad.shell;

import java.io.PrintStream;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.mad.MadService;
import org.jrdma.ib.mad.sa.SaClient;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands {@code ibstat}, {@code sminfo}, {@code saquery} and {@code ibroute} (infiniband-diags). Each
 * takes the tool's arguments as words, prints to {@code System.out}, and fails with a {@link CommandFailure}
 * carrying the tool's stderr text and exit status.
 */
@Component(service = MadCommands.class, property = {
    "osgi.command.scope=rdma",
    "osgi.command.function=ibstat",
    "osgi.command.function=sminfo",
    "osgi.command.function=saquery",
    "osgi.command.function=ibroute"})
public class MadCommands {
    @Reference
    IbCore core;

    @Reference
    MadService mad;

    @Reference
    SaClient sa;

    public void ibstat(String... args) {
        execute(new Ibstat(core), args);
    }

    public void sminfo(String... args) {
        execute(new Sminfo(core, mad), args);
    }

    public void saquery(String... args) {
        execute(new Saquery(core, sa), args);
    }

    public void ibroute(String... args) {
        execute(new Ibroute(core, mad), args);
    }

    /** Runs a tool the way the launcher expects: non-zero exit status throws with the stderr text. */
    static void execute(DiagTool tool, String[] args) {
        PrintStream out = System.out;
        int status = tool.run(out, words(args)) & 0xff;
        out.flush();
        String err = tool.stderr.toString();
        if (status != 0) {
            throw new CommandFailure(status, err.endsWith("\n") ? err.substring(0, err.length() - 1) : err);
        }
        if (!err.isEmpty()) {
            System.err.print(err);
        }
    }

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
