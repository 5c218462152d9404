package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.cli.CNum;

/**
 * What the infiniband-diags tools share ({@code ibdiag_common.c}, libibumad's port choice): the
 * messages of {@code IBWARN}, {@code IBPANIC}, {@code IBEXIT}, and the default CA/port.
 */
abstract class DiagTool {
    final String prog;
    final StringBuilder stderr = new StringBuilder();

    DiagTool(String prog) {
        this.prog = prog;
    }

    /** Runs the tool: the exit status (0, or what C's exit() would give, modulo 256). */
    abstract int run(PrintStream out, String... args);

    /**
     * The port's SM LID; if it is 0 but an SM runs on this very port (IsSM set) and has not finished its
     * first sweep (the container has just started), waits for it a little (up to 5 s). A real fabric's
     * tools do not wait: there, opensm came up long before.
     */
    static int smLid(org.jrdma.ib.core.IbDevice dev, int port) {
        long end = System.nanoTime() + 5_000_000_000L;
        while (true) {
            org.jrdma.ib.core.PortAttr a = dev.queryPort(port);
            if (a.smLid() != 0 || (a.portCapFlags() & org.jrdma.ib.core.PortModify.CAP_IS_SM) == 0
                    || System.nanoTime() > end) {
                return a.smLid();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return a.smLid();
            }
        }
    }

    /** {@code ibdiag_common.c}'s {@code -P}: {@code strtoul(optarg, NULL, 0)} into an int (junk is 0, the default port). */
    static int caPort(String optarg) {
        return (int) CNum.strtoul(optarg);
    }

    /**
     * {@code ibdiag_common.c}'s {@code -t}: the whole word a number in 1..INT_MAX ({@code strtol}, base by prefix),
     * else null: the caller then ends with {@link #invalidTimeout}.
     */
    static Integer timeout(String optarg) {
        Long v = CNum.strtolWhole(optarg);
        return v == null || v <= 0 || v > Integer.MAX_VALUE ? null : v.intValue();
    }

    /** The {@code IBEXIT} of a {@code -t} that {@link #timeout} refused. */
    int invalidTimeout(PrintStream out, String optarg) {
        return ibexit(out, String.format("Invalid timeout \"%s\".  Timeout requires a positive integer value < %d.",
                optarg, Integer.MAX_VALUE));
    }

    static long pid() {
        return ProcessHandle.current().pid();
    }

    void ibwarn(String fn, String msg) {
        stderr.append(String.format("ibwarn: [%d] %s: %s\n", pid(), fn, msg));
    }

    /** {@code IBPANIC}: stderr, exit(-1). */
    int ibpanic(String fn, String msg) {
        stderr.append(String.format("ibpanic: [%d] %s: %s: Success\n", pid(), fn, msg));
        return 255;
    }

    /** {@code IBEXIT}: ibexit prints to stdout, exit(-1). */
    int ibexit(PrintStream out, String msg) {
        out.printf("%s: iberror: failed: %s\n", prog, msg);
        return 255;
    }

    /** The devices as libibumad lists them (by name). */
    static List<IbDevice> devices(IbCore core) {
        return core.devices().stream().sorted(Comparator.comparing(IbDevice::name)).toList();
    }

    /**
     * {@code umad_resolve_ca_port}: the named CA (or the first with an active InfiniBand port), and the
     * given port (or its first active one, else its first InfiniBand one). Null if none.
     */
    static Object[] resolve(IbCore core, String ca, int port) {
        List<IbDevice> all = devices(core);
        for (int pass = 0; pass < 2; pass++) {
            for (IbDevice d : all) {
                if (ca != null && !d.name().equals(ca)) {
                    continue;
                }
                for (int p = 1; p <= d.physPortCnt(); p++) {
                    if (port > 0 && p != port) {
                        continue;
                    }
                    if (d.linkLayer(p) == LinkLayer.INFINIBAND
                            && (pass == 1 || d.queryPort(p).state() == PortState.ACTIVE)) {
                        return new Object[] {d, p};
                    }
                }
            }
        }
        return null;
    }
}
