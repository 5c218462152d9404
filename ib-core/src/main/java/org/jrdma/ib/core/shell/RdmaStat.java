package org.jrdma.ib.core.shell;

import static org.jrdma.ib.core.shell.Rd.cmd;

import java.util.Map;

import org.jrdma.ib.core.VerbsException;

/**
 * iproute2's {@code rdma statistic}: {@code show [link [DEV[/PORT]]]} prints each port's hardware
 * counters on one line, {@code link rxe0/1 sent_pkts 10 rcvd_pkts 10 ...}. Ports of devices
 * without counters (hw-loopback) print nothing. Per-QP counters ({@code qp}, {@code mode},
 * {@code bind}) are not supported.
 */
final class RdmaStat {
    private RdmaStat() {
    }

    static int cmdStat(Rd rd) {
        return rd.execCmd("statistic command", RdmaStat::statShow,
                cmd("show", RdmaStat::statShow),
                cmd("list", RdmaStat::statShow),
                cmd("help", RdmaStat::statHelp));
    }

    static int statHelp(Rd rd) {
        rd.prOut("Usage: %s statistic show [link [DEV/PORT_INDEX]]\n", Rd.FILENAME);
        return 0;
    }

    private static int statShow(Rd rd) {
        return rd.execCmd("statistic show command", RdmaStat::statShowLink,
                cmd("link", RdmaStat::statShowLink));
    }

    private static int statShowLink(Rd rd) {
        return rd.execLink(RdmaStat::statOne, false);
    }

    private static int statOne(Rd rd) {
        if (rd.portIdx == 0) {
            return 0;
        }
        Map<String, Long> stats;
        try {
            stats = rd.dev.queryHwStats(rd.portIdx);
        } catch (VerbsException e) {
            return rd.kernelError(e);
        }
        if (stats.isEmpty()) {
            return 0;
        }
        StringBuilder sb = new StringBuilder("link ").append(rd.dev.name()).append('/').append(rd.portIdx).append(' ');
        stats.forEach((name, value) -> sb.append(name).append(' ').append(Long.toUnsignedString(value)).append(' '));
        rd.prOut("%s\n", sb);
        return 0;
    }
}
