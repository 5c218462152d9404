package org.jrdma.perftest;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.cli.CNum;

/**
 * {@code struct perftest_parameters} and {@code parser()} of perftest 4.5 ({@code perftest_parameters.c}):
 * the options that matter on a soft RoCE / loopback stack, with perftest's defaults, range checks,
 * messages and {@code force_dependecies} rules. Options perftest has and this does not are refused
 * as unknown, the way getopt refuses them.
 */
final class Params {
    enum Verb { SEND, WRITE, READ, ATOMIC }
    enum Tst { BW, LAT }
    enum Machine { CLIENT, SERVER }

    static final int DEF_PORT = 18515;
    static final int DEF_SIZE_BW = 65536;
    static final int DEF_SIZE_LAT = 2;
    static final int DEF_ITERS = 1000;
    static final int DEF_ITERS_WB = 5000;
    static final int DEF_TX_BW = 128;
    static final int DEF_TX_LAT = 1;
    static final int DEF_QP_TIME = 14;
    static final int DEF_RX_RDMA = 1;
    static final int DEF_RX_SEND = 512;
    static final int DEF_CQ_MOD = 100;
    static final int DEF_SIZE_ATOMIC = 8;
    static final int DEF_DURATION = 5;
    static final int DEF_INIT_MARGIN = -1;
    static final int DEF_INLINE = -1;
    static final int MIN_ITER = 5;
    static final int MAX_ITER = 100000000;
    static final int MAX_TX = 15000;
    static final int MAX_GID_IX = 64;
    static final int MAX_QP_NUM = 16384;
    static final int MAX_RX = 16384;
    static final int MAX_CQ_MOD = 1024;
    static final int MAX_INLINE = 912;
    static final long MAX_SIZE = 8388608;
    static final int MSG_SIZE_CQ_MOD_LIMIT = 8192;
    static final int DEF_CACHE_LINE_SIZE = 64;
    static final int DEF_PAGE_SIZE = 4096;
    static final String RESULT_LINE = "---------------------------------------------------------------------------------------\n";
    /** perftest's {@code VERSION} as exchanged (4.5-0.17 sends 6.06). */
    static final String VERSION = "6.06";

    final Verb verb;
    final Tst tst;
    final String argv0;

    int port = DEF_PORT;
    int ibPort = 1;
    String ibDevname;
    String servername;
    Machine machine;
    long size;
    int txDepth;
    int rxDepth;
    int qpTimeout = DEF_QP_TIME;
    int sl;
    int gidIndex = -1;
    boolean useGidUser;
    int mtu;
    long iters;
    int numOfQps = 1;
    int inlineSize = DEF_INLINE;
    int outReads;
    int cqMod = DEF_CQ_MOD;
    boolean reqCqMod;
    boolean reqSize;
    boolean runAll;
    boolean duration;
    int durationSec = DEF_DURATION;
    int margin = DEF_INIT_MARGIN;
    boolean cpuFreqF;
    boolean rdmaCm;
    boolean gbits;
    boolean noPeak;
    boolean fetchAndAdd = true;
    boolean cycles;
    boolean histogram;
    boolean unsorted;
    int cacheLineSize = DEF_CACHE_LINE_SIZE;
    int cycleBuffer = DEF_PAGE_SIZE;

    Params(Verb verb, Tst tst, String argv0) {
        this.verb = verb;
        this.tst = tst;
        this.argv0 = argv0;
        size = tst == Tst.BW ? DEF_SIZE_BW : DEF_SIZE_LAT;
        txDepth = tst == Tst.BW ? DEF_TX_BW : DEF_TX_LAT;
        rxDepth = verb == Verb.SEND ? DEF_RX_SEND : DEF_RX_RDMA;
        iters = tst == Tst.BW && verb == Verb.WRITE ? DEF_ITERS_WB : DEF_ITERS;
        if (verb == Verb.ATOMIC) {
            size = DEF_SIZE_ATOMIC;
        }
    }

    /** What {@code parser} returns besides 0. */
    static final int FAILURE = 1;
    static final int VERSION_EXIT = 10;
    static final int HELP_EXIT = 11;

    /** Thrown by the checks perftest ends with {@code exit(1)} inside the parser. */
    static final class ExitNow extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        /** perftest's {@code exit()} inside the parser (no "Parser function exited" line), not a {@code return 1}. */
        final boolean direct;

        ExitNow(int status) {
            this(status, true);
        }

        ExitNow(int status, boolean direct) {
            super(null, null, false, false);
            this.status = status;
            this.direct = direct;
        }
    }

    /** Long options: name, takes an argument, the short letter it stands for (0: a flag of its own). */
    private record LongOpt(String name, boolean hasArg, char val) {
    }

    private static final List<LongOpt> LONG = List.of(
            new LongOpt("port", true, 'p'), new LongOpt("ib-dev", true, 'd'), new LongOpt("ib-port", true, 'i'),
            new LongOpt("mtu", true, 'm'), new LongOpt("size", true, 's'), new LongOpt("iters", true, 'n'),
            new LongOpt("tx-depth", true, 't'), new LongOpt("qp-timeout", true, 'u'), new LongOpt("sl", true, 'S'),
            new LongOpt("gid-index", true, 'x'), new LongOpt("all", false, 'a'), new LongOpt("CPU-freq", false, 'F'),
            new LongOpt("connection", true, 'c'), new LongOpt("qp", true, 'q'), new LongOpt("inline_size", true, 'I'),
            new LongOpt("outs", true, 'o'), new LongOpt("rdma_cm", false, 'R'), new LongOpt("help", false, 'h'),
            new LongOpt("rx-depth", true, 'r'), new LongOpt("cq-mod", true, 'Q'), new LongOpt("noPeak", false, 'N'),
            new LongOpt("version", false, 'V'), new LongOpt("report-cycles", false, 'C'),
            new LongOpt("report-histogrm", false, 'H'), new LongOpt("report-unsorted", false, 'U'),
            new LongOpt("atomic_type", true, 'A'), new LongOpt("duration", true, 'D'), new LongOpt("margin", true, 'f'),
            new LongOpt("report_gbits", false, '\0'));

    private static final String SHORT = "p:d:i:m:s:n:t:u:S:x:c:q:I:o:r:Q:A:D:f:aFRhNVCHU";

    /**
     * {@code parser()}: 0, {@link #FAILURE}, {@link #HELP_EXIT} or {@link #VERSION_EXIT}; messages to
     * {@code out} and {@code err} as perftest prints them.
     */
    int parse(String[] args, PrintStream out, StringBuilder err) {
        List<String> operands = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                for (i++; i < args.length; i++) {
                    operands.add(args[i]);
                }
                break;
            }
            if (a.startsWith("--")) {
                String name = a.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                LongOpt match = null;
                List<LongOpt> prefixed = new ArrayList<>();
                for (LongOpt o : LONG) {
                    if (o.name.equals(name)) {
                        match = o;
                        break;
                    }
                    if (o.name.startsWith(name)) {
                        prefixed.add(o);
                    }
                }
                if (match == null && prefixed.size() == 1) {
                    match = prefixed.get(0);
                }
                if (match == null) {
                    if (prefixed.size() > 1) {
                        err.append(argv0).append(": option '").append(a).append("' is ambiguous\n");
                    } else {
                        err.append(argv0).append(": unrecognized option '").append(a).append("'\n");
                    }
                    return invalid(out, err);
                }
                if (match.hasArg && value == null) {
                    if (i + 1 >= args.length) {
                        err.append(argv0).append(": option '--").append(match.name).append("' requires an argument\n");
                        return invalid(out, err);
                    }
                    value = args[++i];
                } else if (!match.hasArg && value != null) {
                    err.append(argv0).append(": option '--").append(match.name).append("' doesn't allow an argument\n");
                    return invalid(out, err);
                }
                int r = option(match.val, value, out, err);
                if (r != 0) {
                    return r;
                }
                continue;
            }
            if (a.startsWith("-") && a.length() > 1) {
                for (int j = 1; j < a.length(); j++) {
                    char c = a.charAt(j);
                    int at = SHORT.indexOf(c);
                    if (at < 0 || c == ':') {
                        err.append(argv0).append(": invalid option -- '").append(c).append("'\n");
                        return invalid(out, err);
                    }
                    String value = null;
                    if (at + 1 < SHORT.length() && SHORT.charAt(at + 1) == ':') {
                        if (j + 1 < a.length()) {
                            value = a.substring(j + 1);
                        } else if (i + 1 < args.length) {
                            value = args[++i];
                        } else {
                            err.append(argv0).append(": option requires an argument -- '").append(c).append("'\n");
                            return invalid(out, err);
                        }
                        j = a.length();
                    }
                    int r = option(c, value, out, err);
                    if (r != 0) {
                        return r;
                    }
                }
                continue;
            }
            operands.add(a);
        }
        if (operands.size() == 1) {
            servername = operands.get(0);
        } else if (operands.size() > 1) {
            err.append(" Invalid Command line. Please check command rerun \n");
            return FAILURE;
        }
        machine = servername != null ? Machine.CLIENT : Machine.SERVER;
        forceDependencies(out, err);
        return 0;
    }

    private int invalid(PrintStream out, StringBuilder err) {
        err.append(" Invalid Command or flag.\n");
        err.append(" Please check command line and run again.\n\n");
        usage(out);
        return FAILURE;
    }

    /** {@code strtol(optarg, &end, 0)} with the whole word required, else perftest's message. */
    private long value(String arg, String name, String type, StringBuilder err) {
        Long v = CNum.strtolWhole(arg);
        if (v == null) {
            err.append(' ').append(name).append(" argument ").append(arg).append(" should be ").append(type).append('\n');
            throw new ExitNow(FAILURE, false);
        }
        return v;
    }

    private long range(String arg, String name, String type, long min, long max, StringBuilder err) {
        long v = value(arg, name, type, err);
        if (type.equals("uint8_t")) {
            v &= 0xff;
        } else if (type.equals("int")) {
            v = (int) v;
        }
        if (v < min || v > max) {
            err.append(' ').append(name).append(" should be between ").append(min).append(" and ").append(max).append('\n');
            throw new ExitNow(FAILURE, false);
        }
        return v;
    }

    private int option(char c, String arg, PrintStream out, StringBuilder err) {
        try {
            switch (c) {
                case 'p' -> port = (int) value(arg, "Port", "int", err);
                case 'd' -> ibDevname = arg;
                case 'i' -> {
                    ibPort = (int) (value(arg, "IB Port", "uint8_t", err) & 0xff);
                    if (ibPort < 1) {
                        err.append("IB Port can't be less than 1\n");
                        return FAILURE;
                    }
                }
                case 'm' -> mtu = (int) value(arg, "MTU", "int", err);
                case 'n' -> iters = range(arg, "Iteration num", "int", MIN_ITER, MAX_ITER, err);
                case 't' -> txDepth = (int) range(arg, "Tx depth", "int", 1, MAX_TX, err);
                case 'u' -> qpTimeout = (int) (value(arg, "QP Timeout", "uint8_t", err) & 0xff);
                case 'S' -> {
                    sl = (int) (value(arg, "Service Level", "uint8_t", err) & 0xff);
                    if (sl > 15) {
                        err.append(" Only 15 Service levels\n");
                        return FAILURE;
                    }
                }
                case 'x' -> {
                    gidIndex = (int) range(arg, "Gid index", "uint8_t", 0, MAX_GID_IX, err);
                    useGidUser = true;
                }
                case 'c' -> {
                    if (!arg.equals("RC")) {
                        // perftest's other transports (UC, UD, XRC, DC, SRD) are not implemented here
                        err.append(" Connection type ").append(arg).append(" is not supported by this perftest (RC only)\n");
                        throw new ExitNow(FAILURE);
                    }
                }
                case 'q' -> {
                    if (tst != Tst.BW) {
                        err.append(" Multiple QPs only available on bw tests\n");
                        return FAILURE;
                    }
                    numOfQps = (int) range(arg, "num of Qps", "int", 1, MAX_QP_NUM, err);
                }
                case 'I' -> {
                    inlineSize = (int) range(arg, "Max inline", "int", 0, MAX_INLINE, err);
                    if (verb == Verb.READ || verb == Verb.ATOMIC) {
                        err.append(" Inline feature not available on READ/Atomic verbs\n");
                        return FAILURE;
                    }
                }
                case 'o' -> {
                    outReads = (int) value(arg, "Outstanding Reads", "int", err);
                    if (verb != Verb.READ && verb != Verb.ATOMIC) {
                        err.append(" Setting Outstanding reads only available on READ verb\n");
                        return FAILURE;
                    }
                }
                case 'r' -> {
                    rxDepth = (int) range(arg, " Rx depth", "int", 1, MAX_RX, err);
                    if (verb != Verb.SEND && rxDepth > DEF_RX_RDMA) {
                        err.append(" On RDMA verbs rx depth can be only 1\n");
                        return FAILURE;
                    }
                }
                case 'Q' -> {
                    cqMod = (int) range(arg, "CQ moderation", "int", 1, MAX_CQ_MOD, err);
                    reqCqMod = true;
                }
                case 'A' -> {
                    if (verb != Verb.ATOMIC) {
                        err.append(" You are not running the atomic_lat/bw test!\n");
                        err.append(" To change the atomic action type, you must run one of the atomic tests\n");
                        return FAILURE;
                    }
                    if (arg.equals("CMP_AND_SWAP")) {
                        fetchAndAdd = false;
                    } else if (arg.equals("FETCH_AND_ADD")) {
                        fetchAndAdd = true;
                    } else {
                        err.append(" Invalid Atomic type! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}\n");
                        throw new ExitNow(1);
                    }
                }
                case 'D' -> {
                    durationSec = (int) value(arg, "Duration period", "int", err);
                    if (durationSec <= 0) {
                        err.append(" Duration period must be positive\n");
                        return FAILURE;
                    }
                    duration = true;
                }
                case 'f' -> {
                    margin = (int) value(arg, "Margin", "int", err);
                    if (margin < 0) {
                        err.append(" Margin must be non-negative\n");
                        return FAILURE;
                    }
                }
                case 'a' -> runAll = true;
                case 'F' -> cpuFreqF = true;
                case 'R' -> rdmaCm = true;
                case 'N' -> noPeak = true;
                case 'C' -> {
                    if (tst != Tst.LAT) {
                        return unknown('C', out, err);
                    }
                    cycles = true;
                }
                case 'H' -> {
                    if (tst != Tst.LAT) {
                        return unknown('H', out, err);
                    }
                    histogram = true;
                }
                case 'U' -> {
                    if (tst != Tst.LAT) {
                        return unknown('U', out, err);
                    }
                    unsorted = true;
                }
                case 'V' -> {
                    out.print("Version: " + VERSION + "\n");
                    return VERSION_EXIT;
                }
                case 'h' -> {
                    usage(out);
                    return HELP_EXIT;
                }
                case 's' -> {
                    String a = arg;
                    long factor = 1;
                    if (a.endsWith("K")) {
                        a = a.substring(0, a.length() - 1);
                        factor = 1024;
                    } else if (a.endsWith("M")) {
                        a = a.substring(0, a.length() - 1);
                        factor = 1024 * 1024;
                    }
                    size = CNum.strtol(a) * factor;
                    reqSize = true;
                    if (size < 1 || size > 0xffffffffL / 2) {
                        err.append(" Message Size should be between 1 and ").append(0xffffffffL / 2).append('\n');
                        return FAILURE;
                    }
                }
                case '\0' -> gbits = true;
                default -> {
                    return unknown(c, out, err);
                }
            }
            return 0;
        } catch (ExitNow e) {
            if (e.direct) {
                throw e;
            }
            return e.status;
        }
    }

    /** The -C/-H/-U of the latency tests, unknown to the bandwidth tests' getopt string too. */
    private int unknown(char c, PrintStream out, StringBuilder err) {
        // perftest's getopt string has these letters for every test; a BW test ignores them
        return 0;
    }

    /** {@code force_dependecies}, the parts that concern the options above. */
    private void forceDependencies(PrintStream out, StringBuilder err) {
        if (!duration) {
            if (txDepth > iters) {
                txDepth = (int) iters;
            }
            if (verb == Verb.SEND && rxDepth > iters) {
                rxDepth = (int) iters;
            }
        }
        if (size > MSG_SIZE_CQ_MOD_LIMIT && !runAll) {
            if (!reqCqMod) {
                cqMod = 1;
            } else if (cqMod > 1) {
                out.print(RESULT_LINE);
                out.print("Warning: Large message requested and CQ moderation enabled\n");
                out.print("Warning: It can lead to inaccurate results\n");
            }
        }
        if (cqMod > txDepth) {
            cqMod = txDepth;
        }
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            inlineSize = 0;
        }
        if (runAll) {
            size = MAX_SIZE;
        }
        if (verb == Verb.ATOMIC && size != DEF_SIZE_ATOMIC) {
            out.print(RESULT_LINE);
            out.print("Message size cannot be changed for Atomic tests \n");
            throw new ExitNow(1);
        }
        if (duration) {
            iters = 0;
            noPeak = true;
            if (runAll) {
                out.print(RESULT_LINE);
                err.append("Duration mode currently doesn't support running on all sizes.\n");
                throw new ExitNow(1);
            }
        }
        if (verb == Verb.SEND && tst == Tst.BW && machine == Machine.SERVER) {
            noPeak = true;
        }
        if (verb == Verb.SEND && rxDepth % 2 == 1 && !runAll) {
            rxDepth += 1;
        }
        if (!duration && iters > 20000 && !noPeak && tst == Tst.BW) {
            noPeak = true;
        }
        if (duration && margin == DEF_INIT_MARGIN) {
            margin = durationSec / 4;
        }
        int m = margin == DEF_INIT_MARGIN ? 2 : margin;
        if (!(durationSec > 2 * m)) {
            out.print(RESULT_LINE);
            err.append("please check that DURATION > 2*MARGIN\n");
            throw new ExitNow(1);
        }
        if (margin == DEF_INIT_MARGIN) {
            margin = 2;
        }
    }

    /** perftest's {@code usage()}, the lines of the options this implementation has, in perftest's words. */
    void usage(PrintStream out) {
        StringBuilder o = new StringBuilder();
        o.append("Usage:\n");
        o.append("  ").append(argv0).append("            start a server and wait for connection\n");
        o.append("  ").append(argv0).append(" <host>     connect to server at <host>\n");
        o.append("\n");
        o.append("Options:\n");
        if (verb != Verb.ATOMIC) {
            o.append("  -a, --all  Run sizes from 2 till 2^23\n");
        }
        if (verb == Verb.ATOMIC) {
            o.append("  -A, --atomic_type=<type>  type of atomic operation from {CMP_AND_SWAP,FETCH_AND_ADD} (default FETCH_AND_ADD)\n");
        }
        o.append("  -c, --connection=<RC>  Connection type RC (default RC)\n");
        if (tst == Tst.LAT) {
            o.append("  -C, --report-cycles  report times in cpu cycle units (default microseconds)\n");
        }
        o.append("  -d, --ib-dev=<dev>  Use IB device <dev> (default first device found)\n");
        o.append("  -D, --duration  Run test for a customized period of seconds.\n");
        o.append("  -f, --margin  measure results within margins. (default=2sec)\n");
        o.append("  -F, --CPU-freq  Do not show a warning even if cpufreq_ondemand module is loaded, and cpu-freq is not on max.\n");
        o.append("  -h, --help  Show this help screen.\n");
        if (tst == Tst.LAT) {
            o.append("  -H, --report-histogram  Print out all results (default print summary only)\n");
        }
        o.append("  -i, --ib-port=<port>  Use port <port> of IB device (default 1)\n");
        if (verb != Verb.READ && verb != Verb.ATOMIC) {
            o.append("  -I, --inline_size=<size>  Max size of message to be sent in inline\n");
        }
        o.append("  -m, --mtu=<mtu>  MTU size : 256 - 4096 (default port mtu)\n");
        o.append("  -n, --iters=<iters>  Number of exchanges (at least 5, default ")
                .append(verb == Verb.WRITE && tst == Tst.BW ? DEF_ITERS_WB : DEF_ITERS).append(")\n");
        if (tst == Tst.BW) {
            o.append("  -N, --noPeak Cancel peak-bw calculation (default with peak up to iters=20000)\n");
        }
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            o.append("  -o, --outs=<num>  num of outstanding read/atom(default max of device)\n");
        }
        o.append("  -p, --port=<port>  Listen on/connect to port <port> (default 18515)\n");
        if (tst == Tst.BW) {
            o.append("  -q, --qp=<num of qp's>  Num of qp's(default 1)\n");
            o.append("  -Q, --cq-mod  Generate Cqe only after <--cq-mod> completion\n");
        }
        if (verb == Verb.SEND) {
            o.append("  -r, --rx-depth=<dep>  Rx queue size (default 512). If using srq, rx-depth controls max-wr size of the srq\n");
        }
        o.append("  -R, --rdma_cm  Connect QPs with rdma_cm and run test on those QPs\n");
        if (verb != Verb.ATOMIC) {
            o.append("  -s, --size=<size>  Size of message to exchange (default ")
                    .append(tst == Tst.LAT ? DEF_SIZE_LAT : DEF_SIZE_BW).append(")\n");
        }
        o.append("  -S, --sl=<sl>  SL (default 0)\n");
        if (tst == Tst.BW) {
            o.append("  -t, --tx-depth=<dep>  Size of tx queue (default 128)\n");
        }
        o.append("  -u, --qp-timeout=<timeout>  QP timeout, timeout value is 4 usec * 2 ^(timeout), default 14\n");
        if (tst == Tst.LAT) {
            o.append("  -U, --report-unsorted  (implies -H) print out unsorted results (default sorted)\n");
        }
        o.append("  -V, --version  Display version number\n");
        o.append("  -x, --gid-index=<index>  Test uses GID with GID index (Default : IB - no gid . ETH - 0)\n");
        if (tst == Tst.BW) {
            o.append("      --report_gbits  Report Max/Average BW of test in Gbit/sec (instead of MiB/sec)\n");
            o.append("        Note: MiB=2^20 byte, while Gb=10^9 bits. Use these formulas for conversion:\n");
            o.append("        Factor=10^9/(2^20*8)=119.2; MiB=Gb_result * factor; Gb=MiB_result / factor\n");
        }
        o.append("\n");
        out.print(o);
    }
}
