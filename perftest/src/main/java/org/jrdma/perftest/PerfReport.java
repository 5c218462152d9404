package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Printf;
import static org.jrdma.perftest.Params.RESULT_LINE;

import java.io.PrintStream;
import java.util.Arrays;

import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Tst;
import org.jrdma.perftest.Params.Verb;

/**
 * What perftest prints on stdout ({@code ctx_print_test_info}, {@code ctx_print_pingpong_data},
 * {@code print_report_bw}, {@code print_full_bw_report}, {@code print_report_lat},
 * {@code print_report_lat_duration}): the header, the address lines, the results table and its rows,
 * in perftest's formats byte for byte. Times are {@link System#nanoTime} "cycles" of a
 * {@value #CPU_MHZ} MHz clock, so perftest's integer arithmetic (medians, the truncated stdev, the peak
 * search) applies unchanged.
 */
final class PerfReport {
    static final String RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_LAT = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average";
    static final double CPU_MHZ = 1000.0;

    /** One row of the BW table, and what {@code xchg_bw_reports} sends. */
    record BwReport(long size, long iters, double bwPeak, double bwAvg, double msgRate) {
    }

    private final Params p;
    private final PrintStream out;

    PerfReport(Params p, PrintStream out) {
        this.p = p;
        this.out = out;
    }

    /** {@code ctx_print_test_info}. */
    void printTestInfo(Mtu mtu, LinkLayer link) {
        StringBuilder o = new StringBuilder();
        o.append(RESULT_LINE);
        o.append("                    ");
        o.append(switch (p.verb) {
            case SEND -> "Send";
            case WRITE -> "RDMA_Write";
            case READ -> "RDMA_Read";
            case ATOMIC -> "Atomic";
        }).append(' ');
        if (p.verb == Verb.ATOMIC) {
            o.append(p.fetchAndAdd ? "FETCH_AND_ADD" : "CMP_AND_SWAP").append(' ');
        }
        o.append(p.tst == Tst.BW ? "BW " : "Latency ");
        o.append("Test\n");
        o.append(" Dual-port       : OFF\t\tDevice         : ").append(p.ibDevname).append('\n');
        o.append(" Number of qps   : ").append(p.numOfQps).append("\t\tTransport type : IB\n");
        o.append(" Connection type : RC\t\tUsing SRQ      : OFF\n");
        o.append(" PCIe relax order: ").append(p.verb == Verb.WRITE && p.tst == Tst.LAT ? "OFF" : "ON").append('\n');
        o.append(" ibv_wr* API     : OFF\n");
        if (p.machine == Machine.CLIENT) {
            o.append(" TX depth        : ").append(p.txDepth).append('\n');
        }
        if (p.verb == Verb.SEND && p.machine == Machine.SERVER) {
            o.append(" RX depth        : ").append(p.rxDepth).append('\n');
        }
        if (p.tst == Tst.BW) {
            o.append(" CQ Moderation   : ").append(p.cqMod).append('\n');
        }
        o.append(" Mtu             : ").append(mtu.bytes()).append("[B]\n");
        o.append(" Link type       : ").append(link == LinkLayer.ETHERNET ? "Ethernet" : "IB").append('\n');
        if (p.gidIndex != -1) {
            o.append(" GID index       : ").append(p.gidIndex).append('\n');
        }
        if (p.verb != Verb.READ && p.verb != Verb.ATOMIC) {
            o.append(" Max inline data : ").append(p.inlineSize).append("[B]\n");
        } else {
            o.append(" Outstand reads  : ").append(p.outReads).append('\n');
        }
        o.append(" rdma_cm QPs\t : ").append(p.rdmaCm ? "ON" : "OFF").append('\n');
        o.append(" Data ex. method : ").append(p.rdmaCm ? "rdma_cm" : "Ethernet");
        if (p.rdmaCm && p.machine == Machine.SERVER) {
            o.append('\n').append(RESULT_LINE);
            o.append(" Waiting for client rdma_cm QP to connect\n");
            o.append(" Please run the same command with the IB/RoCE interface IP");
        }
        o.append('\n').append(RESULT_LINE);
        out.print(o);
        out.flush();
    }

    /** {@code ctx_print_pingpong_data}: one QP's address line (and GID line). */
    void printDest(String side, Dest d) {
        StringBuilder o = new StringBuilder();
        o.append(' ').append(side).append(" address: LID ").append(Printf.altHex(d.lid() & 0xffffffffL, 4))
                .append(" QPN ").append(Printf.altHex(d.qpn() & 0xffffffffL, 6))
                .append(" PSN ").append(Printf.altHex(d.psn() & 0xffffffffL, 6));
        if (p.verb == Verb.READ) {
            o.append(" OUT ").append(Printf.altHex(d.outReads() & 0xffffffffL, 4));
        }
        if (p.verb == Verb.READ || p.verb == Verb.WRITE) {
            o.append(" RKey ").append(Printf.altHex(d.rkey() & 0xffffffffL, 8))
                    .append(" VAddr ").append(Printf.altHex(d.vaddr(), 16));
        }
        o.append('\n');
        if (p.gidIndex > -1) {
            o.append(" GID: ");
            byte[] g = d.gid();
            for (int i = 0; i < 16; i++) {
                o.append(Printf.f("%02d", g[i] & 0xff)).append(i < 15 ? ":" : "\n");
            }
        }
        out.print(o);
    }

    /** The BW table's head ({@code --report_gbits}: in Gb/sec). */
    void printBwHeader() {
        out.print(RESULT_LINE);
        out.print((p.gbits ? RESULT_FMT_G : RESULT_FMT) + "\n");
        out.flush();
    }

    /** The latency table's head (duration mode: its own columns). */
    void printLatHeader() {
        out.print(RESULT_LINE);
        out.print((p.duration ? RESULT_FMT_LAT_DUR : RESULT_FMT_LAT) + "\n");
        out.flush();
    }

    /** {@code print_report_bw}: the row of one size, returned for {@code xchg_bw_reports}. */
    BwReport printReportBw(long size, Samples s) {
        int n = p.numOfQps;
        long iters = s.iters();
        long[] tposted = s.tposted();
        long[] tcompleted = s.tcompleted();
        double cyclesToUnits = CPU_MHZ * 1000000;
        long calc = p.duration ? iters : iters * n;
        int location = p.noPeak ? 0 : (int) (calc - 1);
        long formatFactor = p.gbits ? 125000000 : 0x100000;
        double sum = (double) (tcompleted[location] - tposted[0]);
        double bwAvg = ((double) size * calc * cyclesToUnits) / (sum * formatFactor);
        double msgRate = ((double) calc * cyclesToUnits) / (sum * 1000000);
        long peakUp = (p.noPeak ? 0 : 1) * size * (long) cyclesToUnits;
        long peakDown = Math.max(1, peakDelta(s)) * formatFactor;
        BwReport r = new BwReport(size, calc, (double) peakUp / peakDown, bwAvg, msgRate);
        printFullBwReport(r);
        return r;
    }

    /** The shortest time per message over every run of completions (unsigned, as perftest's cycles_t). */
    private long peakDelta(Samples s) {
        long[] tposted = s.tposted();
        long[] tcompleted = s.tcompleted();
        long optDelta = tcompleted[0] - tposted[0];
        if (optDelta < 0) {
            optDelta = Long.MAX_VALUE; // cycles_t is unsigned: an unset tcompleted[0] never wins the minimum
        }
        if (p.noPeak) {
            return optDelta;
        }
        long tot = s.iters() * p.numOfQps;
        for (int i = 0; i < tot; i++) {
            for (long j = roundUp(i + 1, p.cqMod) - 1; j < tot; j += p.cqMod) {
                long t = Long.divideUnsigned(tcompleted[(int) j] - tposted[i], j - i + 1);
                if (Long.compareUnsigned(t, optDelta) < 0) {
                    optDelta = t;
                }
            }
            if (tot % p.cqMod != 0) {
                long j = tot - 1;
                long t = Long.divideUnsigned(tcompleted[(int) j] - tposted[i], j - i + 1);
                if (Long.compareUnsigned(t, optDelta) < 0) {
                    optDelta = t;
                }
            }
        }
        return optDelta;
    }

    /** {@code print_full_bw_report}: more digits when a {@code --report_gbits} average is under 0.1. */
    void printFullBwReport(BwReport r) {
        boolean incAccuracy = r.bwAvg() < 0.1 && p.gbits;
        if (incAccuracy) {
            out.print(Printf.f(" %-7d    %d           %-7.6f            %-7.6f            %-7.6f", r.size(), r.iters(),
                    r.bwPeak(), r.bwAvg(), r.msgRate()));
        } else {
            out.print(Printf.f(" %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iters(), r.bwPeak(),
                    r.bwAvg(), r.msgRate()));
        }
        out.print("\n");
        out.flush();
    }

    /** {@code print_report_lat}: min, max, median, average, truncated stdev and percentiles of one size. */
    void printReportLat(long size, Samples s) {
        if (p.duration) {
            printReportLatDuration(size, s);
            return;
        }
        int rttFactor = p.verb == Verb.READ || p.verb == Verb.ATOMIC ? 1 : 2;
        int measureCnt = (int) s.iters() - 1;
        long[] delta = new long[measureCnt];
        for (int i = 0; i < measureCnt; i++) {
            delta[i] = s.tposted()[i + 1] - s.tposted()[i];
        }
        double q = (p.cycles ? 1 : CPU_MHZ) * rttFactor;
        if (p.unsorted) {
            printAll(delta, measureCnt, q);
        }
        Arrays.sort(delta);
        measureCnt -= 2;
        long median = (measureCnt - 1) % 2 != 0 ? (delta[measureCnt / 2] + delta[measureCnt / 2 - 1]) / 2
                : delta[measureCnt / 2];
        double averageSum = 0;
        for (int i = 0; i < measureCnt; i++) {
            averageSum += delta[i] / q;
        }
        double average = averageSum / measureCnt;
        double stdevSum = 0;
        for (int i = 0; i < measureCnt; i++) {
            int tempVar = (int) (average - (delta[i] / q));
            int powVar = (int) Math.pow(tempVar, 2);
            stdevSum += powVar;
        }
        if (p.histogram) {
            printAll(delta, measureCnt, q);
        }
        if (p.unsorted || p.histogram) {
            out.print(RESULT_LINE);
            out.print(RESULT_FMT_LAT + "\n");
        }
        double latency = median / q;
        double stdev = Math.sqrt(stdevSum / measureCnt);
        int iters99 = (int) Math.ceil(measureCnt * 0.99);
        int iters999 = (int) Math.ceil(measureCnt * 0.999);
        out.print(Printf.f(" %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f",
                size, s.iters(), delta[0] / q, delta[measureCnt] / q, latency, average, stdev, delta[iters99] / q,
                delta[iters999] / q));
        out.print("\n");
        out.flush();
    }

    /** {@code -H} / {@code -U}: every measurement, numbered. */
    private void printAll(long[] delta, int count, double q) {
        out.print("#, " + (p.cycles ? "cycles" : "usec") + "\n");
        for (int i = 0; i < count; i++) {
            out.print((i + 1) + ", " + gFormat(delta[i] / q) + "\n");
        }
    }

    /** {@code print_report_lat_duration}: the average over the sample window and transactions per second. */
    void printReportLatDuration(long size, Samples s) {
        int rttFactor = p.verb == Verb.READ || p.verb == Verb.ATOMIC ? 1 : 2;
        long sample = s.tcompleted()[0] - s.tposted()[0];
        double latency = ((sample / CPU_MHZ) / rttFactor) / s.iters();
        double tps = s.iters() / (sample / (CPU_MHZ * 1000000));
        out.print(Printf.f(" %-7d       %d            %-7.2f        %-7.2f", size, s.iters(), latency, tps));
        out.print("\n");
        out.flush();
    }

    static long roundUp(long v, long m) {
        return ((v + m - 1) / m) * m;
    }

    /** C's {@code %g}: six significant digits, trailing zeros dropped. */
    static String gFormat(double v) {
        String s = Printf.f("%.6g", v);
        if (s.contains("e")) {
            return s;
        }
        if (s.contains(".")) {
            s = s.replaceAll("0+$", "");
            if (s.endsWith(".")) {
                s = s.substring(0, s.length() - 1);
            }
        }
        return s;
    }
}
