package org.jrdma.ib.core.shell;

import org.jrdma.ib.core.cli.Getopt;
import static org.jrdma.ib.core.shell.Rd.cmd;

import java.io.PrintStream;
import java.util.List;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.jrdma.ib.core.spi.RdmaLinkOps;

/**
 * iproute2's {@code rdma} tool (6.1, {@code rdma/rdma.c}): {@code rdma [OPTIONS] OBJECT [COMMAND]}
 * with the objects {@code dev}, {@code link} and {@code resource}. Exit status 1 on any error, 0
 * otherwise, including for an unknown word, which iproute2 only reports.
 * <p>Not supported, and refused with exit status 1: JSON output ({@code -j}), raw resource data
 * ({@code -r}), batch files ({@code -b}), the {@code system} object and per-QP statistics.
 */
final class Rdma extends ShellTool {
    static final String VERSION = "6.1.0";

    private static final LongOption[] LONG_OPTIONS = {
        new LongOption("version", Getopt.NO_ARGUMENT, 'V'),
        new LongOption("help", Getopt.NO_ARGUMENT, 'h'),
        new LongOption("json", Getopt.NO_ARGUMENT, 'j'),
        new LongOption("pretty", Getopt.NO_ARGUMENT, 'p'),
        new LongOption("details", Getopt.NO_ARGUMENT, 'd'),
        new LongOption("raw", Getopt.NO_ARGUMENT, 'r'),
        new LongOption("force", Getopt.NO_ARGUMENT, 'f'),
        new LongOption("batch", Getopt.REQUIRED_ARGUMENT, 'b'),
    };

    private final List<RdmaLinkOps> linkOps;

    /** @param linkOps the drivers that can create devices ({@code rdma link add ... type TYPE}) */
    Rdma(List<RdmaLinkOps> linkOps) {
        this.linkOps = List.copyOf(linkOps);
    }

    @Override
    void execute(IbCore core, PrintStream out, PrintStream err, String... args) {
        StringBuilder stderr = new StringBuilder();
        int status = main(core, out, stderr, args);
        out.flush();
        exit(status, stderr, err);
    }

    private int main(IbCore core, PrintStream out, StringBuilder stderr, String[] args) {
        Rd rd = new Rd(core, linkOps, out, stderr);
        boolean showDetails = false;
        boolean showDriverDetails = false;
        Getopt g = new Getopt(Rd.FILENAME, args, ":Vhdrpjfb:", LONG_OPTIONS, stderr);
        for (int opt; (opt = g.next()) != -1; ) {
            switch (opt) {
                case 'V' -> {
                    rd.prOut("%s utility, iproute2-%s\n", Rd.FILENAME, VERSION);
                    return 0;
                }
                case 'p', 'f' -> {
                    // pretty JSON and forced batch: nothing to do without -j and -b
                }
                case 'd' -> {
                    if (showDetails) {
                        showDriverDetails = true;
                    } else {
                        showDetails = true;
                    }
                }
                case 'j' -> {
                    unsupported(rd, "JSON output (-j)");
                    return 1;
                }
                case 'r' -> {
                    unsupported(rd, "raw resource data (-r)");
                    return 1;
                }
                case 'b' -> {
                    unsupported(rd, "batch mode (-b)");
                    return 1;
                }
                case 'h' -> {
                    help(rd);
                    return 0;
                }
                case ':' -> {
                    rd.prErr("-%c option requires an argument\n", (char) g.optopt);
                    return 1;
                }
                default -> {
                    rd.prErr("Unknown option.\n");
                    help(rd);
                    return 1;
                }
            }
        }
        rd.showDetails = showDetails;
        rd.showDriverDetails = showDriverDetails;
        rd.setArgs(g.operands());
        int err = rd.execCmd("object", Rdma::cmdHelp,
                cmd("help", Rdma::cmdHelp),
                cmd("dev", RdmaDev::cmdDev),
                cmd("link", RdmaLink::cmdLink),
                cmd("resource", RdmaRes::cmdRes),
                cmd("system", r -> unsupported(r, "the system object")),
                cmd("statistic", RdmaStat::cmdStat));
        return err != 0 ? 1 : 0;
    }

    private static int unsupported(Rd rd, String what) {
        rd.prErr("%s: %s is not supported by jrdma\n", Rd.FILENAME, what);
        return -Errno.EOPNOTSUPP.value();
    }

    private static int cmdHelp(Rd rd) {
        help(rd);
        return 0;
    }

    private static void help(Rd rd) {
        rd.prOut("Usage: %s [ OPTIONS ] OBJECT { COMMAND | help }\n"
                + "       %s [ -f[orce] ] -b[atch] filename\n"
                + "where  OBJECT := { dev | link | resource | system | statistic | help }\n"
                + "       OPTIONS := { -V[ersion] | -d[etails] | -j[son] | -p[retty] -r[aw]}\n",
                Rd.FILENAME, Rd.FILENAME);
    }
}
