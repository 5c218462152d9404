package org.jrdma.perftest;

import java.io.PrintStream;

import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Verb;

/**
 * The flow of perftest's latency mains after the resources are up ({@code write_lat.c},
 * {@code send_lat.c}, {@code read_lat.c}, {@code atomic_lat.c}): which side handshakes when, runs the
 * iterations and prints what, per size with {@code -a}.
 */
record LatMain(Params p, PerfResources res, Communication c, PerfReport report, PrintStream out) {
    void run() {
        switch (p.verb) {
            case WRITE -> writeLat();
            case SEND -> sendLat();
            default -> readAtomicLat();
        }
    }

    /** write_lat.c: both sides ping-pong; no closing exchange. */
    private void writeLat() {
        c.sync();
        c.connect(res);
        c.printDests(report, out);
        c.sync();
        report.printLatHeader();
        for (long size : p.sizes(p.runAll)) {
            report.printReportLat(size, LatIterations.write(p, res, c.rem[0], size));
        }
        out.print(Params.RESULT_LINE);
    }

    /** send_lat.c: the receives of each size posted before its sync. */
    private void sendLat() {
        c.connect(res);
        c.sync();
        c.printDests(report, out);
        report.printLatHeader();
        for (long size : p.sizes(p.runAll)) {
            res.setRecvWqes(size);
            c.sync();
            report.printReportLat(size, LatIterations.send(p, res, c.rem[0], size));
        }
        out.print(Params.RESULT_LINE);
        c.closeConnection();
    }

    /** read_lat.c, atomic_lat.c: only the client measures. */
    private void readAtomicLat() {
        c.sync();
        c.connect(res);
        c.printDests(report, out);
        c.sync();
        if (p.machine == Machine.SERVER) {
            c.closeConnection();
            out.print(Params.RESULT_LINE);
            return;
        }
        report.printLatHeader();
        for (long size : p.sizes(p.runAll && p.verb == Verb.READ)) {
            report.printReportLat(size, LatIterations.readAtomic(p, res, c.rem[0], size));
        }
        c.closeConnection();
        out.print(Params.RESULT_LINE);
    }
}
