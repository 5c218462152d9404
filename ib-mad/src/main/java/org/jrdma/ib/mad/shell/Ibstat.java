package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.cli.Getopt;

/**
 * infiniband-diags' {@code ibstat [-l] [-s] [-p] [CA [port]]}: what libibumad reads from sysfs, printed
 * as {@code ibstat.c} prints it. "CA type" is sysfs {@code hca_type}, which only some drivers have (rxe
 * and the loopback have none: empty); "Hardware version" is {@code hw_rev} ({@code %x}); "Rate" is the
 * leading integer of sysfs {@code rate}. No "Effective speed" line: {@code ibv_query_port_speed} is not
 * supported, and ibstat leaves the line out then.
 */
final class Ibstat extends DiagTool {
    private static final String[] STATE = {"???", "Down", "Initializing", "Armed", "Active"};
    private static final String[] PHYS = {"No state change", "Sleep", "Polling", "Disabled",
        "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"};

    private final IbCore core;

    Ibstat(IbCore core) {
        super("ibstat");
        this.core = core;
    }

    @Override
    int run(PrintStream out, String... args) {
        boolean list = false;
        boolean shortFormat = false;
        boolean ports = false;
        Getopt g = new Getopt(prog, args, "lsp", new Getopt.LongOption[] {
            new Getopt.LongOption("list_of_cas", Getopt.NO_ARGUMENT, 'l'),
            new Getopt.LongOption("short", Getopt.NO_ARGUMENT, 's'),
            new Getopt.LongOption("port_list", Getopt.NO_ARGUMENT, 'p')}, stderr);
        for (int c; (c = g.next()) != -1; ) {
            switch (c) {
                case 'l' -> list = true;
                case 's' -> shortFormat = true;
                case 'p' -> ports = true;
                default -> {
                    stderr.append("Usage: ibstat [options] <ca_name> [portnum]\n");
                    return 255;
                }
            }
        }
        List<String> ops = g.operands();
        int devPort = -1;
        if (ops.size() > 1) {
            try {
                devPort = Integer.decode(ops.get(1));
            } catch (NumberFormatException e) {
                devPort = 0;
            }
        }
        List<IbDevice> sel = new ArrayList<>(devices(core));
        if (!ops.isEmpty()) {
            IbDevice d = sel.stream().filter(x -> x.name().equals(ops.get(0))).findFirst().orElse(null);
            if (d == null) {
                return ibpanic("main", "'" + ops.get(0) + "' IB device can't be found");
            }
            sel = List.of(d);
        }
        if (ports) {
            for (IbDevice d : sel) {
                for (int p = 1; p <= d.physPortCnt(); p++) {
                    long guid = d.queryGid(p, 0).interfaceId();
                    if (guid != 0) {
                        out.printf("0x%016x\n", guid);
                    }
                }
            }
            return 0;
        }
        for (IbDevice d : sel) {
            if (list) {
                out.printf("%s\n", d.name());
            } else if (caStat(out, d, devPort, shortFormat) < 0) {
                ibwarn("main", "stat of IB device '" + d.name() + "' failed");
            }
        }
        return 0;
    }

    private int caStat(PrintStream out, IbDevice d, int portnum, boolean noPorts) {
        String type = nodeType(d.nodeType().value());
        if (!noPorts && portnum >= 0) {
            if (portnum > d.physPortCnt() || portnum < 1) {
                ibwarn("ca_stat", String.format("%s: '%s' has no port number %d - max (%d)", type, d.name(), portnum,
                        d.physPortCnt()));
                return -1;
            }
            out.printf("%s: '%s'\n", type, d.name());
            portDump(out, d, portnum, true);
            return 0;
        }
        DeviceAttr a = d.queryDevice();
        out.printf("%s '%s'\n", type, d.name());
        out.printf("\t%s type: %s\n", type, "");
        out.printf("\tNumber of ports: %d\n", d.physPortCnt());
        out.printf("\tFirmware version: %s\n", a.fwVer() == null ? "" : a.fwVer());
        out.printf("\tHardware version: %x\n", a.hwVer());
        out.printf("\tNode GUID: 0x%016x\n", d.nodeGuid());
        out.printf("\tSystem image GUID: 0x%016x\n", a.sysImageGuid());
        if (!noPorts) {
            for (int p = 1; p <= d.physPortCnt(); p++) {
                portDump(out, d, p, false);
            }
        }
        return 0;
    }

    static String nodeType(int t) {
        return switch (t) { case 1 -> "CA"; case 2 -> "Switch"; case 3 -> "Router"; case 4 -> "iWARP RNIC"; default -> "???"; };
    }

    private static void portDump(PrintStream out, IbDevice d, int p, boolean alone) {
        String pre = alone ? "" : "\t\t";
        String hdrpre = alone ? "" : "\t";
        PortAttr a = d.queryPort(p);
        int state = a.state().value();
        int phys = a.physState() == null ? 0 : a.physState().value();
        out.printf("%sPort %d:\n", hdrpre, p);
        out.printf("%sState: %s\n", pre, state <= 4 ? STATE[state] : "???");
        out.printf("%sPhysical state: %s\n", pre, phys <= 7 ? PHYS[phys] : "???");
        int rate = rate(a.activeWidth(), a.activeSpeed());
        if (a.activeSpeed() == 8) {
            out.printf("%sRate: %d (FDR10)\n", pre, rate);
        } else if (rate != 2) {
            out.printf("%sRate: %d\n", pre, rate);
        } else {
            out.printf("%sRate: 2.5\n", pre);
        }
        out.printf("%sBase lid: %d\n", pre, a.lid());
        out.printf("%sLMC: %d\n", pre, a.lmc());
        out.printf("%sSM lid: %d\n", pre, a.smLid());
        out.printf("%sCapability mask: 0x%08x\n", pre, a.portCapFlags());
        out.printf("%sPort GUID: 0x%016x\n", pre, d.queryGid(p, 0).interfaceId());
        out.printf("%sLink layer: %s\n", pre, d.linkLayer(p).label());
    }

    /** The leading integer of sysfs {@code rate} ({@code rate_show}: lanes x lane speed, in Gb/s). */
    static int rate(int width, int speed) {
        int lanes = switch (width) { case 1 -> 1; case 2 -> 4; case 4 -> 8; case 8 -> 12; case 16 -> 2; default -> 1; };
        int tenths = switch (speed) {
            case 1 -> 25; case 2 -> 50; case 4, 8 -> 100; case 16 -> 140; case 32 -> 250; case 64 -> 500;
            case 128 -> 1000; default -> 25;
        };
        return lanes * tenths / 10;
    }
}
