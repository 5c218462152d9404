package org.jrdma.perftest;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.ToolClient;
import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Tst;
import org.jrdma.perftest.Params.Verb;

/**
 * One of perftest 4.5's {@code ib_*_bw} / {@code ib_*_lat} tools on the ib-core verbs API: the tool
 * (verb and test kind) and the main flow of a run, cut as linux-rdma perftest's {@code src/} is:
 * {@link Params} (parser, checks, defaults), {@link PerfResources} (device, buffer, MR, CQs, QPs),
 * {@link Communication} over {@link Comm} / {@link CmComm} (the side channel and the exchange of keys),
 * {@link BwMain} / {@link LatMain} (each test family's main) with {@link BwIterations} /
 * {@link LatIterations} (the run_iter loops), and {@link PerfReport} (what is printed).
 * <p>What perftest writes to stdout goes to {@code out} as it is produced; what it writes to stderr
 * is collected and, for {@link #execute}, thrown as the {@link CommandFailure} message with the exit
 * status. An interrupt (Ctrl-C, a stopping bundle) ends a run with status 130 after everything is
 * released.
 */
public final class Perftest {
    /** The exit status of a run ended by an interrupt (128 + SIGINT). */
    public static final int INTERRUPTED = Exit.INTERRUPTED;

    private final String name;
    private final Verb verb;
    private final Tst tst;
    /** Test hook: called once the server's TCP socket listens. */
    public volatile Runnable listening;
    /** Test hook: the run's registered buffer, before it is released (after the last exchange). */
    public volatile Consumer<ByteBuffer> beforeRelease;

    private Perftest(String name, Verb verb, Tst tst) {
        this.name = name;
        this.verb = verb;
        this.tst = tst;
    }

    /** The eight tools. */
    public static List<Perftest> all() {
        List<Perftest> l = new ArrayList<>();
        for (Verb v : List.of(Verb.WRITE, Verb.READ, Verb.SEND, Verb.ATOMIC)) {
            for (Tst t : Tst.values()) {
                l.add(named("ib_" + v.name().toLowerCase() + "_" + t.name().toLowerCase()));
            }
        }
        return l;
    }

    /** {@code ib_write_bw} ... {@code ib_atomic_lat}, or null. */
    public static Perftest named(String name) {
        String[] p = name.split("_");
        if (p.length != 3 || !p[0].equals("ib")) {
            return null;
        }
        Verb v;
        switch (p[1]) {
            case "write" -> v = Verb.WRITE;
            case "read" -> v = Verb.READ;
            case "send" -> v = Verb.SEND;
            case "atomic" -> v = Verb.ATOMIC;
            default -> {
                return null;
            }
        }
        Tst t;
        switch (p[2]) {
            case "bw" -> t = Tst.BW;
            case "lat" -> t = Tst.LAT;
            default -> {
                return null;
            }
        }
        return new Perftest(name, v, t);
    }

    public String name() {
        return name;
    }

    /** As a Gogo command: returns for status 0, else throws {@link CommandFailure} with perftest's stderr text. */
    public void execute(IbCore core, RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        ToolMain.execute(out, err, stderr -> main(core, cm, out, stderr, err, args));
    }

    /** As a process: stderr text printed to {@code err}, the exit status returned. */
    public int run(IbCore core, RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        return ToolMain.run(out, err, stderr -> main(core, cm, out, stderr, err, args));
    }

    /**
     * One run: perftest's stdout to {@code out}; its stderr text to {@code err}, except warnings (the run goes
     * on), which go to {@code warn} at once, where perftest prints them.
     */
    int main(IbCore core, RdmaCm cm, PrintStream out, StringBuilder err, PrintStream warn, String[] args) {
        Params p = new Params(verb, tst, name);
        int r;
        try {
            r = p.parse(args, out, err);
        } catch (Params.ExitNow e) {
            return e.status;
        }
        if (r != 0) {
            if (r != Params.VERSION_EXIT && r != Params.HELP_EXIT) {
                err.append(" Parser function exited with Error\n");
            }
            return 1;
        }
        IbClient owner = ToolClient.named(name);
        PerfResources res;
        try {
            res = PerfResources.open(p, core, owner, out, err, text -> warn(out, err, warn, text));
        } catch (Exit e) {
            return e.status(); // nothing allocated yet
        }
        Communication comm = null;
        try {
            if (p.rdmaCm && cm == null) {
                err.append(" RDMA CM is not available (ib-cm is not running)\n");
                err.append(" Unable to create RDMA_CM resources\n");
                throw Exit.exit(1);
            }
            if (p.machine == Machine.SERVER) {
                out.print("\n************************************\n");
                out.print("* Waiting for client to connect... *\n");
                out.print("************************************\n");
                out.flush();
            }
            comm = Communication.establish(p, cm, owner, res, listening, err);
            runTest(p, res, comm, out);
            return 0;
        } catch (Exit e) {
            return e.status();
        } finally {
            boolean interrupted = Thread.interrupted();
            release(res, comm);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The main flow once the side channel is up: versions, MTU, resources, keys, the header, the test. */
    private void runTest(Params p, PerfResources res, Communication comm, PrintStream out) {
        comm.exchangeVersions();
        comm.checkMtu(res.dev, out);
        if (p.rdmaCm) {
            comm.cmComm.connectTest(comm);
        } else {
            res.ctxInit();
        }
        comm.setUpConnection(res);
        PerfReport report = new PerfReport(p, out);
        report.printTestInfo(comm.currMtu, res.link);
        if (tst == Tst.BW) {
            new BwMain(p, res, comm, report, out).run();
        } else {
            new LatMain(p, res, comm, report, out).run();
        }
        if (beforeRelease != null && res.bufs != null) {
            beforeRelease.accept(res.bufs.buf().duplicate().clear());
        }
    }

    /** The RDMA CM's ids and the side channel's resources first, then the run's, then the TCP socket. */
    private static void release(PerfResources res, Communication comm) {
        CmComm cmComm = comm == null ? null : comm.cmComm;
        if (cmComm != null) {
            cmComm.closeAll();
        }
        res.release(cmComm);
        if (comm != null) {
            comm.comm.close();
        }
    }

    /** A warning on stderr (the run goes on): out first, so it lands where perftest's would. */
    private static void warn(PrintStream out, StringBuilder err, PrintStream warn, String text) {
        if (warn == null) {
            err.append(text);
            return;
        }
        out.flush();
        warn.print(text);
        warn.flush();
    }

    // ====================================================================== helpers

    static WorkCompletion[] wcs(int n) {
        WorkCompletion[] wc = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wc[i] = new WorkCompletion();
        }
        return wc;
    }

    static int wcStatusCode(WcStatus s) {
        return s.ordinal();
    }

    static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // gone with its device already
        }
    }
}
