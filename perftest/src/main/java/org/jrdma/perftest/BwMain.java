package org.jrdma.perftest;

import java.io.PrintStream;

import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Verb;

/**
 * The flow of perftest's bandwidth mains after the resources are up ({@code write_bw.c},
 * {@code read_bw.c}, {@code atomic_bw.c}, {@code send_bw.c}): which side handshakes when, runs the
 * iterations and prints what, per size with {@code -a}.
 */
record BwMain(Params p, PerfResources res, Communication c, PerfReport report, PrintStream out) {
    void run() {
        if (p.verb == Verb.SEND) {
            sendBw();
        } else {
            oneSided();
        }
    }

    /** write_bw.c, read_bw.c, atomic_bw.c: only the client measures; the server prints the client's report. */
    private void oneSided() {
        c.connect(res);
        c.printDests(report, out);
        c.sync();
        report.printBwHeader();
        if (p.machine == Machine.SERVER) {
            c.sync();
            report.printFullBwReport(c.xchgBwReports(new PerfReport.BwReport(0, 0, 0, 0, 0)));
            c.closeConnection();
            out.print(Params.RESULT_LINE);
            return;
        }
        PerfReport.BwReport last = null;
        for (long size : p.sizes(p.runAll && p.verb != Verb.ATOMIC)) {
            last = report.printReportBw(size, BwIterations.client(p, res, c.rem, size));
        }
        out.print(Params.RESULT_LINE);
        c.sync();
        c.xchgBwReports(last);
        c.closeConnection();
    }

    /** send_bw.c: both sides measure, the server its receives; with -a a sync before and after each size. */
    private void sendBw() {
        c.connect(res);
        c.sync();
        c.printDests(report, out);
        report.printBwHeader();
        for (long size : p.sizes(p.runAll)) {
            if (p.machine == Machine.SERVER) {
                res.setRecvWqes(size);
            }
            c.sync();
            Samples s = p.machine == Machine.CLIENT ? BwIterations.client(p, res, c.rem, size)
                    : BwIterations.server(p, res, size);
            report.printReportBw(size, s);
            if (p.runAll) {
                c.sync();
            }
        }
        out.print(Params.RESULT_LINE);
        c.closeConnection();
    }
}
