package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadService;

/**
 * infiniband-diags' {@code sminfo [-C ca] [-P port] [-t ms] [sm_lid]}: a LID-routed SubnGet(SMInfo) to
 * the SM (the port's SM LID unless a LID is given), printed as {@code sminfo.c} prints it.
 */
final class Sminfo extends DiagTool {
    private static final String[] STATES = {"SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER"};
    private final IbCore core;
    private final MadService mad;

    Sminfo(IbCore core, MadService mad) {
        super("sminfo");
        this.core = core;
        this.mad = mad;
    }

    @Override
    int run(PrintStream out, String... args) {
        String ca = null;
        int caPort = 0;
        int timeout = 1000;
        Getopt g = new Getopt(prog, args, "C:P:t:", new Getopt.LongOption[] {
            new Getopt.LongOption("Ca", Getopt.REQUIRED_ARGUMENT, 'C'),
            new Getopt.LongOption("Port", Getopt.REQUIRED_ARGUMENT, 'P'),
            new Getopt.LongOption("timeout", Getopt.REQUIRED_ARGUMENT, 't')}, stderr);
        for (int c; (c = g.next()) != -1; ) {
            switch (c) {
                case 'C' -> ca = g.optarg;
                case 'P' -> caPort = caPort(g.optarg);
                case 't' -> {
                    Integer t = timeout(g.optarg);
                    if (t == null) {
                        return invalidTimeout(out, g.optarg);
                    }
                    timeout = t;
                }
                default -> {
                    stderr.append("Usage: sminfo [options] <sm_lid|sm_dr_path> [modifier]\n");
                    return 255;
                }
            }
        }
        Object[] r = resolve(core, ca, caPort);
        if (r == null) {
            return ibexit(out, String.format("Failed to open '%s' port '%d'", ca, caPort));
        }
        IbDevice dev = (IbDevice) r[0];
        int port = (Integer) r[1];
        List<String> ops = g.operands();
        int lid;
        if (!ops.isEmpty()) {
            try {
                lid = Integer.decode(ops.get(0));
            } catch (NumberFormatException e) {
                return ibexit(out, "can't resolve destination port " + ops.get(0));
            }
        } else {
            lid = smLid(dev, port);
            if (lid == 0) {
                return ibexit(out, "can't resolve sm port (null)");
            }
        }
        SmpQuery smp;
        try {
            smp = new SmpQuery(mad, dev, port, timeout);
        } catch (VerbsException e) {
            return ibexit(out, String.format("Failed to open '%s' port '%d'", dev.name(), port));
        }
        try {
            Mad resp = smp.lid(lid, 0x0020, 0);
            if (resp == null) {
                return ibexit(out, "query");
            }
            long guid = resp.u64(64);
            long act = resp.u32(64 + 16);
            int prio = resp.u8(64 + 20) >>> 4;
            int state = resp.u8(64 + 20) & 0xf;
            out.printf("sminfo: sm lid %d sm guid 0x%x, activity count %d priority %d state %d %s\n", lid, guid, act,
                    prio, state, state < STATES.length ? STATES[state] : "???");
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        } finally {
            smp.close();
        }
    }
}
