package org.jrdma.ib.mad.shell;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadService;

/**
 * infiniband-diags' {@code ibroute [-C ca] [-P port] [-t ms] [-M] [-n] [-a] [-D] <dest dr_path|lid> [startlid
 * [endlid]]}: a switch's forwarding tables read with SubnGet SMPs and printed as {@code ibroute.c} prints them. The
 * destination is a LID (LID-routed) or, with {@code -D}, the directed route {@code 0,<port>}: one hop out of the
 * local port, which on the loopback reaches its switch (longer routes: there is no second switch). The loopback
 * switch has no linear forwarding table (LinearFDBTop 0), so the unicast dump is empty.
 */
final class Ibroute extends DiagTool {
    private static final int MIN_MCAST_LID = 0xc000;
    private static final int MAX_MCAST_LID = 0xfffe;
    private static final int MLIDS_IN_BLOCK = 32;
    private final IbCore core;
    private final MadService mad;
    private boolean brief;
    private boolean all;

    Ibroute(IbCore core, MadService mad) {
        super("ibroute");
        this.core = core;
        this.mad = mad;
    }

    /** The switch's answers {@code check_switch} gathers. */
    private record Switch(int nports, long guid, String desc, Mad switchInfo) {
    }

    @Override
    int run(PrintStream out, String... args) {
        String ca = null;
        int caPort = 0;
        int timeout = 1000;
        boolean multicast = false;
        boolean dr = false;
        Getopt g = new Getopt(prog, args, "C:P:t:MnaD", new Getopt.LongOption[] {
            new Getopt.LongOption("Ca", Getopt.REQUIRED_ARGUMENT, 'C'),
            new Getopt.LongOption("Port", Getopt.REQUIRED_ARGUMENT, 'P'),
            new Getopt.LongOption("timeout", Getopt.REQUIRED_ARGUMENT, 't'),
            new Getopt.LongOption("Multicast", Getopt.NO_ARGUMENT, 'M'),
            new Getopt.LongOption("no_dests", Getopt.NO_ARGUMENT, 'n'),
            new Getopt.LongOption("all", Getopt.NO_ARGUMENT, 'a'),
            new Getopt.LongOption("Direct", Getopt.NO_ARGUMENT, 'D')}, stderr);
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
                case 'M' -> multicast = true;
                case 'n' -> brief = true;
                case 'a' -> all = true;
                case 'D' -> dr = true;
                default -> {
                    return usage();
                }
            }
        }
        List<String> ops = g.operands();
        if (ops.isEmpty()) {
            return usage();
        }
        Object[] r = resolve(core, ca, caPort);
        if (r == null) {
            return ibexit(out, String.format("Failed to open '%s' port '%d'", ca, caPort));
        }
        IbDevice dev = (IbDevice) r[0];
        int port = (Integer) r[1];
        int dest = destination(ops.get(0), dr, port);
        if (dest < 0) {
            return ibexit(out, "can't resolve destination port " + ops.get(0));
        }
        int start = ops.size() > 1 ? (int) CNum.strtoul(ops.get(1)) : 0; // ibroute.c: strtoul(argv[1], NULL, 0)
        int end = ops.size() > 2 ? (int) CNum.strtoul(ops.get(2)) : 0;
        String portid = dr ? "DR path slid 65535; dlid 65535; " + ops.get(0) : "Lid " + dest;
        try (SmpQuery smp = new SmpQuery(mad, dev, port, timeout)) {
            Object sw = checkSwitch(smp, dr, dest);
            if (sw instanceof String err) {
                return ibexit(out, "dump tables: " + err);
            }
            if (multicast) {
                dumpMulticast(out, smp, dr, dest, (Switch) sw, portid, start, end);
            } else {
                dumpUnicast(out, (Switch) sw, portid, start, end);
            }
            return 0;
        } catch (VerbsException e) {
            return ibexit(out, String.format("Failed to open '%s' port '%d'", dev.name(), port));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private int usage() {
        stderr.append("Usage: ibroute [options] [<dest dr_path|lid|guid> [<startlid> [<endlid>]]]\n");
        return 255;
    }

    /** The LID, or for {@code -D} 0 when the route is {@code 0,<port>}; -1 if it cannot be resolved. */
    private static int destination(String s, boolean dr, int port) {
        try {
            if (!dr) {
                int lid = Integer.decode(s);
                return lid > 0 && lid < MIN_MCAST_LID ? lid : -1;
            }
            String[] hops = s.split(",");
            return hops.length == 2 && Integer.parseInt(hops[0].trim()) == 0
                    && Integer.parseInt(hops[1].trim()) == port ? 0 : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Mad get(SmpQuery smp, boolean dr, int lid, int attr, long mod) throws InterruptedException {
        return dr ? smp.neighbour(attr, mod) : smp.lid(lid, attr, mod);
    }

    /** {@code check_switch}: NodeInfo, NodeDescription, a switch, SwitchInfo; else the error text. */
    private static Object checkSwitch(SmpQuery smp, boolean dr, int lid) throws InterruptedException {
        Mad ni = get(smp, dr, lid, 0x0011, 0);
        if (ni == null) {
            return "node info failed: valid addr?";
        }
        Mad nd = get(smp, dr, lid, 0x0010, 0);
        if (nd == null) {
            return "node desc failed";
        }
        if (ni.u8(64 + 2) != 2) {
            return "not a switch";
        }
        Mad si = get(smp, dr, lid, 0x0012, 0);
        if (si == null) {
            return "switch info failed: is a switch node?";
        }
        byte[] d = java.util.Arrays.copyOfRange(nd.bytes(), 64, 128);
        int len = 0;
        while (len < d.length && d[len] != 0) {
            len++;
        }
        return new Switch(ni.u8(64 + 3), ni.u64(64 + 12), new String(d, 0, len, StandardCharsets.US_ASCII), si);
    }

    /** {@code dump_unicast_tables}: up to LinearFDBTop, which the loopback switch leaves at 0. */
    private void dumpUnicast(PrintStream out, Switch sw, String portid, int start, int end) {
        int top = sw.switchInfo().u16(64 + 6);
        if (end == 0 || end > top) {
            end = top;
        }
        out.printf("Unicast lids [0x%x-0x%x] of switch %s guid 0x%016x (%s):\n", start, end, portid, sw.guid(),
                sw.desc());
        out.print("  Lid  Out   Destination\n");
        out.print("       Port     Info \n");
        out.printf("%d %slids dumped \n", 0, all ? "" : "valid ");
    }

    /** {@code dump_multicast_tables}: every block of every position of the MLID range, non-empty MLIDs printed. */
    private void dumpMulticast(PrintStream out, SmpQuery smp, boolean dr, int lid, Switch sw, String portid,
            int start, int end) throws InterruptedException {
        int cap = sw.switchInfo().u16(64 + 4);
        int top = sw.switchInfo().u16(64 + 18);
        if (end == 0 || end > MIN_MCAST_LID + cap - 1) {
            end = MIN_MCAST_LID + cap - 1;
        }
        if (!all && top != 0 && top < end && top >= MIN_MCAST_LID - 1) {
            end = top;
        }
        start = Math.max(start, MIN_MCAST_LID);
        end = Math.min(end, MAX_MCAST_LID);
        out.printf("Multicast mlids [0x%x-0x%x] of switch %s guid 0x%016x (%s):\n", start, end, portid, sw.guid(),
                sw.desc());
        header(out, sw.nports());
        int chunks = (sw.nports() + 1 + 15) / 16;
        char[][] mft = new char[chunks][MLIDS_IN_BLOCK];
        int n = 0;
        for (int block = start / MLIDS_IN_BLOCK; block <= end / MLIDS_IN_BLOCK; block++) {
            for (int j = 0; j < chunks; j++) {
                long mod = (block - MIN_MCAST_LID / MLIDS_IN_BLOCK) | (long) j << 28;
                Mad m = get(smp, dr, lid, 0x001b, mod);
                if (m == null) {
                    stderr.append(String.format("SubnGet() failed; MAD status 0x%x AM 0x%x\n", smp.status, mod));
                    return;
                }
                for (int e = 0; e < MLIDS_IN_BLOCK; e++) {
                    mft[j][e] = (char) m.u16(64 + 2 * e);
                }
            }
            for (int i = Math.max(block * MLIDS_IN_BLOCK, start); i < Math.min((block + 1) * MLIDS_IN_BLOCK, end + 1);
                    i++) {
                String line = mlid(mft, i % MLIDS_IN_BLOCK, sw.nports());
                if (line != null) {
                    out.printf("0x%04x      %s\n", i, line);
                    n++;
                }
            }
        }
        out.printf("%d %smlids dumped \n", n, all ? "" : "valid ");
    }

    private void header(PrintStream out, int nports) {
        if (brief) {
            out.print(" MLid       Port Mask\n");
            return;
        }
        StringBuilder s = new StringBuilder();
        if (nports > 9) {
            for (int i = 0; i <= nports; i++) {
                s.append(i % 10 != 0 ? ' ' : (char) ('0' + i / 10)).append(' ');
            }
            out.printf("            %s\n", s);
            s.setLength(0);
        }
        for (int i = 0; i <= nports; i++) {
            s.append(i % 10).append(' ');
        }
        out.printf("     Ports: %s\n", s);
        out.print(" MLid\n");
    }

    /** {@code dump_mlid}: the ports of one MLID ('x' per member port, or the masks with -n); null if empty. */
    private String mlid(char[][] mft, int entry, int nports) {
        StringBuilder s = new StringBuilder();
        boolean nonzero = false;
        if (brief) {
            for (char[] chunk : mft) {
                nonzero |= chunk[entry] != 0;
                s.append(String.format("%04x", (int) chunk[entry]));
            }
        } else {
            for (int i = 0; i <= nports; i++) {
                char mask = mft[i / 16][entry];
                nonzero |= mask != 0;
                s.append((mask & 1 << i % 16) != 0 ? 'x' : ' ').append(' ');
            }
        }
        return nonzero || all ? s.toString() : null;
    }
}
