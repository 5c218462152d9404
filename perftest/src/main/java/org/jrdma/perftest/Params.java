package org.jrdma.perftest;

import org.jrdma.ib.core.cli.CNum;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

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

    /** The message sizes of a run: with {@code all} ({@code -a}) 2 to 2^23 bytes, else {@code -s}'s. */
    long[] sizes(boolean all) {
        if (!all) {
            return new long[] {size};
        }
        long[] sizes = new long[23];
        for (int i = 1; i < 24; i++) {
            sizes[i - 1] = 1L << i;
        }
        return sizes;
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

    /** What an option does with its argument: 0, or what {@code parser} returns. */
    @FunctionalInterface
    interface Handler {
        int apply(Params p, String arg, PrintStream out, StringBuilder err);
    }

    /** An option that only sets fields (its checks may still end the parse by {@link ExitNow}). */
    @FunctionalInterface
    private interface Setter {
        void apply(Params p, String arg, StringBuilder err);
    }

    /**
     * A row of perftest's {@code long_options} and getopt string: long name, short letter ({@code '\0'}: a
     * long option only), whether it takes an argument, and its {@code case} of the parser.
     */
    record Option(String name, char letter, boolean hasArg, Handler handler) {
    }

    private static Option opt(String name, char letter, boolean hasArg, Handler h) {
        return new Option(name, letter, hasArg, h);
    }

    private static Option set(String name, char letter, boolean hasArg, Setter s) {
        return new Option(name, letter, hasArg, (p, a, o, e) -> {
            s.apply(p, a, e);
            return 0;
        });
    }

    /** A check of the parser that returns 1 (perftest then prints "Parser function exited with Error"). */
    private static int fail(StringBuilder err, String text) {
        err.append(text);
        return FAILURE;
    }

    static final List<Option> OPTIONS = List.of(
            set("port", 'p', true, (p, a, e) -> p.port = (int) p.value(a, "Port", "int", e)),
            set("ib-dev", 'd', true, (p, a, e) -> p.ibDevname = a),
            opt("ib-port", 'i', true, (p, a, o, e) -> {
                p.ibPort = (int) (p.value(a, "IB Port", "uint8_t", e) & 0xff);
                return p.ibPort < 1 ? fail(e, "IB Port can't be less than 1\n") : 0;
            }),
            set("mtu", 'm', true, (p, a, e) -> p.mtu = (int) p.value(a, "MTU", "int", e)),
            opt("size", 's', true, Params::size),
            set("iters", 'n', true, (p, a, e) -> p.iters = p.range(a, "Iteration num", "int", MIN_ITER, MAX_ITER, e)),
            set("tx-depth", 't', true, (p, a, e) -> p.txDepth = (int) p.range(a, "Tx depth", "int", 1, MAX_TX, e)),
            set("qp-timeout", 'u', true, (p, a, e) -> p.qpTimeout = (int) (p.value(a, "QP Timeout", "uint8_t", e) & 0xff)),
            opt("sl", 'S', true, (p, a, o, e) -> {
                p.sl = (int) (p.value(a, "Service Level", "uint8_t", e) & 0xff);
                return p.sl > 15 ? fail(e, " Only 15 Service levels\n") : 0;
            }),
            set("gid-index", 'x', true, (p, a, e) -> {
                p.gidIndex = (int) p.range(a, "Gid index", "uint8_t", 0, MAX_GID_IX, e);
                p.useGidUser = true;
            }),
            set("all", 'a', false, (p, a, e) -> p.runAll = true),
            set("CPU-freq", 'F', false, (p, a, e) -> p.cpuFreqF = true),
            set("connection", 'c', true, (p, a, e) -> {
                if (!a.equals("RC")) {
                    // perftest's other transports (UC, UD, XRC, DC, SRD) are not implemented here
                    e.append(" Connection type ").append(a).append(" is not supported by this perftest (RC only)\n");
                    throw new ExitNow(FAILURE);
                }
            }),
            opt("qp", 'q', true, (p, a, o, e) -> {
                if (p.tst != Tst.BW) {
                    return fail(e, " Multiple QPs only available on bw tests\n");
                }
                p.numOfQps = (int) p.range(a, "num of Qps", "int", 1, MAX_QP_NUM, e);
                return 0;
            }),
            opt("inline_size", 'I', true, (p, a, o, e) -> {
                p.inlineSize = (int) p.range(a, "Max inline", "int", 0, MAX_INLINE, e);
                return p.verb == Verb.READ || p.verb == Verb.ATOMIC
                        ? fail(e, " Inline feature not available on READ/Atomic verbs\n") : 0;
            }),
            opt("outs", 'o', true, (p, a, o, e) -> {
                p.outReads = (int) p.value(a, "Outstanding Reads", "int", e);
                return p.verb != Verb.READ && p.verb != Verb.ATOMIC
                        ? fail(e, " Setting Outstanding reads only available on READ verb\n") : 0;
            }),
            set("rdma_cm", 'R', false, (p, a, e) -> p.rdmaCm = true),
            opt("help", 'h', false, (p, a, o, e) -> {
                p.usage(o);
                return HELP_EXIT;
            }),
            opt("rx-depth", 'r', true, (p, a, o, e) -> {
                p.rxDepth = (int) p.range(a, " Rx depth", "int", 1, MAX_RX, e);
                return p.verb != Verb.SEND && p.rxDepth > DEF_RX_RDMA ? fail(e, " On RDMA verbs rx depth can be only 1\n") : 0;
            }),
            set("cq-mod", 'Q', true, (p, a, e) -> {
                p.cqMod = (int) p.range(a, "CQ moderation", "int", 1, MAX_CQ_MOD, e);
                p.reqCqMod = true;
            }),
            set("noPeak", 'N', false, (p, a, e) -> p.noPeak = true),
            opt("version", 'V', false, (p, a, o, e) -> {
                o.print("Version: " + VERSION + "\n");
                return VERSION_EXIT;
            }),
            // perftest's getopt string has -C, -H and -U for every test; a BW test ignores them
            set("report-cycles", 'C', false, (p, a, e) -> p.cycles |= p.tst == Tst.LAT),
            set("report-histogrm", 'H', false, (p, a, e) -> p.histogram |= p.tst == Tst.LAT),
            set("report-unsorted", 'U', false, (p, a, e) -> p.unsorted |= p.tst == Tst.LAT),
            opt("atomic_type", 'A', true, Params::atomicType),
            opt("duration", 'D', true, (p, a, o, e) -> {
                p.durationSec = (int) p.value(a, "Duration period", "int", e);
                if (p.durationSec <= 0) {
                    return fail(e, " Duration period must be positive\n");
                }
                p.duration = true;
                return 0;
            }),
            opt("margin", 'f', true, (p, a, o, e) -> {
                p.margin = (int) p.value(a, "Margin", "int", e);
                return p.margin < 0 ? fail(e, " Margin must be non-negative\n") : 0;
            }),
            set("report_gbits", '\0', false, (p, a, e) -> p.gbits = true));

    /**
     * {@code parser()}: 0, {@link #FAILURE}, {@link #HELP_EXIT} or {@link #VERSION_EXIT}; messages to
     * {@code out} and {@code err} as perftest prints them.
     */
    int parse(String[] args, PrintStream out, StringBuilder err) {
        List<String> operands = new ArrayList<>();
        int r = OptionTable.parse(argv0, OPTIONS, args, operands, err, (o, value) -> option(o, value, out, err));
        if (r == OptionTable.INVALID) {
            err.append(" Invalid Command or flag.\n");
            err.append(" Please check command line and run again.\n\n");
            usage(out);
            return FAILURE;
        }
        if (r != 0) {
            return r;
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

    /** One option's case; a check that returns 1 from inside a value helper ends here, one that exits goes on up. */
    private int option(Option o, String arg, PrintStream out, StringBuilder err) {
        try {
            return o.handler().apply(this, arg, out, err);
        } catch (ExitNow e) {
            if (e.direct) {
                throw e;
            }
            return e.status;
        }
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

    /** {@code -s}: a number with an optional K or M, its longest prefix that parses, as perftest's {@code strtol}. */
    private static int size(Params p, String arg, PrintStream out, StringBuilder err) {
        String a = arg;
        long factor = 1;
        if (a.endsWith("K")) {
            a = a.substring(0, a.length() - 1);
            factor = 1024;
        } else if (a.endsWith("M")) {
            a = a.substring(0, a.length() - 1);
            factor = 1024 * 1024;
        }
        p.size = CNum.strtol(a) * factor;
        p.reqSize = true;
        if (p.size < 1 || p.size > 0xffffffffL / 2) {
            err.append(" Message Size should be between 1 and ").append(0xffffffffL / 2).append('\n');
            return FAILURE;
        }
        return 0;
    }

    private static int atomicType(Params p, String arg, PrintStream out, StringBuilder err) {
        if (p.verb != Verb.ATOMIC) {
            err.append(" You are not running the atomic_lat/bw test!\n");
            err.append(" To change the atomic action type, you must run one of the atomic tests\n");
            return FAILURE;
        }
        if (arg.equals("CMP_AND_SWAP")) {
            p.fetchAndAdd = false;
        } else if (arg.equals("FETCH_AND_ADD")) {
            p.fetchAndAdd = true;
        } else {
            err.append(" Invalid Atomic type! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}\n");
            throw new ExitNow(1);
        }
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
        checkMargin(out, err);
    }

    /** The duration mode's margin: a quarter of the duration unless {@code -f} set it, less than half of it. */
    private void checkMargin(PrintStream out, StringBuilder err) {
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
