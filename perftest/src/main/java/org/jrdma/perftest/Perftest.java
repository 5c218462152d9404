package org.jrdma.perftest;

import static org.jrdma.ib.core.cli.Exit.checkInterrupt;
import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Exit.interrupted;
import static org.jrdma.ib.core.cli.Polling.idle;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.GlobalRoute;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Printf;
import org.jrdma.ib.core.cli.ToolClient;
import org.jrdma.ib.core.cli.ToolMain;
import org.jrdma.perftest.Params.Machine;
import org.jrdma.perftest.Params.Tst;
import org.jrdma.perftest.Params.Verb;

/**
 * One of perftest 4.5's {@code ib_*_bw} / {@code ib_*_lat} tools on the ib-core verbs API. The flow
 * of each {@code main} (which side handshakes when, who prints what), the handshake bytes, the
 * option parsing and the report arithmetic are perftest's; times are taken with
 * {@link System#nanoTime} as "cycles" of a 1000 MHz clock, so the integer arithmetic of perftest's
 * reports (medians, the truncated stdev, the peak search) applies unchanged.
 * <p>What perftest writes to stdout goes to {@code out} as it is produced; what it writes to stderr
 * is collected and, for {@link #execute}, thrown as the {@link CommandFailure} message with the exit
 * status. An interrupt (Ctrl-C, a stopping bundle) ends a run with status 130 after everything is
 * released.
 */
public final class Perftest {
    /** The exit status of a run ended by an interrupt (128 + SIGINT). */
    public static final int INTERRUPTED = Exit.INTERRUPTED;
    static final String RESULT_LINE = Params.RESULT_LINE;
    static final String RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_LAT = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average";
    static final double CPU_MHZ = 1000.0;
    private static final Random RANDOM = new Random();
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final String name;
    private final Verb verb;
    private final Tst tst;
    /** Test hook: called once the server's TCP socket listens. */
    public volatile Runnable listening;
    /** Test hook: the run's registered buffer, before it is released (after the last exchange). */
    public volatile Consumer<ByteBuffer> beforeRelease;

    private Perftest(String name, Verb verb, Tst tst) {
        this.name = name;
        this.verb = verb;
        this.tst = tst;
    }

    /** The eight tools. */
    public static List<Perftest> all() {
        List<Perftest> l = new ArrayList<>();
        for (Verb v : List.of(Verb.WRITE, Verb.READ, Verb.SEND, Verb.ATOMIC)) {
            for (Tst t : Tst.values()) {
                l.add(named("ib_" + v.name().toLowerCase() + "_" + t.name().toLowerCase()));
            }
        }
        return l;
    }

    /** {@code ib_write_bw} ... {@code ib_atomic_lat}, or null. */
    public static Perftest named(String name) {
        String[] p = name.split("_");
        if (p.length != 3 || !p[0].equals("ib")) {
            return null;
        }
        Verb v;
        switch (p[1]) {
            case "write" -> v = Verb.WRITE;
            case "read" -> v = Verb.READ;
            case "send" -> v = Verb.SEND;
            case "atomic" -> v = Verb.ATOMIC;
            default -> {
                return null;
            }
        }
        Tst t;
        switch (p[2]) {
            case "bw" -> t = Tst.BW;
            case "lat" -> t = Tst.LAT;
            default -> {
                return null;
            }
        }
        return new Perftest(name, v, t);
    }

    public String name() {
        return name;
    }

    /** As a Gogo command: returns for status 0, else throws {@link CommandFailure} with perftest's stderr text. */
    public void execute(IbCore core, RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        ToolMain.execute(out, err, stderr -> main(core, cm, out, stderr, err, args));
    }

    /** As a process: stderr text printed to {@code err}, the exit status returned. */
    public int run(IbCore core, RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        return ToolMain.run(out, err, stderr -> main(core, cm, out, stderr, err, args));
    }

    /**
     * One run: perftest's stdout to {@code out}; its stderr text to {@code err}, except warnings (the run goes
     * on), which go to {@code warn} at once, where perftest prints them.
     */
    int main(IbCore core, RdmaCm cm, PrintStream out, StringBuilder err, PrintStream warn, String[] args) {
        Params p = new Params(verb, tst, name);
        int r;
        try {
            r = p.parse(args, out, err);
        } catch (Params.ExitNow e) {
            return e.status;
        }
        if (r != 0) {
            if (r != Params.VERSION_EXIT && r != Params.HELP_EXIT) {
                err.append(" Parser function exited with Error\n");
            }
            return 1;
        }
        Run run = new Run(p, core, cm, out, err, warn);
        try {
            run.main();
            return 0;
        } catch (Exit e) {
            return e.status();
        } finally {
            boolean interrupted = Thread.interrupted();
            run.release();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ====================================================================== one run

    final class Run {
        final Params p;
        final IbCore core;
        final RdmaCm cm;
        final PrintStream out;
        final StringBuilder err;
        final PrintStream warn;
        final IbClient owner;

        IbDevice dev;
        LinkLayer link;
        Mtu currMtu;
        Comm comm;
        CmComm cmComm;
        ProtectionDomain pd;
        MemoryRegion mr;
        ByteBuffer buf;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        QueuePair[] qps;
        long buffSize;
        Dest[] my;
        Dest[] rem;
        boolean withGid;
        String remVersion = Params.VERSION;
        long[] tposted;
        long[] tcompleted;
        DurationClock clock;

        Run(Params p, IbCore core, RdmaCm cm, PrintStream out, StringBuilder err, PrintStream warn) {
            this.p = p;
            this.core = core;
            this.cm = cm;
            this.out = out;
            this.err = err;
            this.warn = warn;
            this.owner = ToolClient.named(name);
        }

        Perftest tool() {
            return Perftest.this;
        }

        /** {@code ctx_init} for {@code -R}: the resources on the CM id's device, the QP created through the id. */
        void ctxInitCm(org.jrdma.ib.cm.RdmaCmId id) {
            if (pd == null) { // a retried connect keeps the buffers of the first attempt
                allocBuffers(id.device());
            }
            qps = new QueuePair[] {id.createQp(pd, qpInitAttr())};
        }

        void main() {
            findDevice();
            checkLink();
            if (p.rdmaCm && cm == null) {
                err.append(" RDMA CM is not available (ib-cm is not running)\n");
                err.append(" Unable to create RDMA_CM resources\n");
                throw exit(1);
            }
            if (p.machine == Machine.SERVER) {
                out.print("\n************************************\n");
                out.print("* Waiting for client to connect... *\n");
                out.print("************************************\n");
                out.flush();
            }
            establishConnection();
            exchangeVersions();
            checkMtu();
            if (p.rdmaCm) {
                cmComm.connectTest(this);
            } else {
                ctxInit(dev);
            }
            setUpConnection();
            printTestInfo();
            if (tst == Tst.BW && verb != Verb.SEND) {
                bwOneSided();
            } else if (tst == Tst.BW) {
                sendBw();
            } else if (verb == Verb.WRITE) {
                writeLat();
            } else if (verb == Verb.SEND) {
                sendLat();
            } else {
                readAtomicLat();
            }
            if (beforeRelease != null && buf != null) {
                beforeRelease.accept(buf.duplicate().clear());
            }
        }

        // ------------------------------------------------------------------ the flows of the mains

        /** write_bw.c, read_bw.c, atomic_bw.c. */
        void bwOneSided() {
            for (int i = 0; i < p.numOfQps; i++) {
                rem[i] = handShake(my[i]);
            }
            checkGidCompatibility();
            connectQps();
            printDests(true);
            handShake(my[0]);
            out.print(RESULT_LINE);
            out.print((p.gbits ? RESULT_FMT_G : RESULT_FMT) + "\n");
            out.flush();
            if (p.machine == Machine.SERVER) {
                handShake(my[0]);
                BwReport remRep = xchgBwReports(new BwReport(0, 0, 0, 0, 0));
                printFullBwReport(remRep);
                closeConnection();
                out.print(RESULT_LINE);
                return;
            }
            BwReport last = null;
            if (p.runAll && verb != Verb.ATOMIC) {
                for (int i = 1; i < 24; i++) {
                    p.size = 1L << i;
                    runIterBw();
                    last = printReportBw();
                }
            } else {
                runIterBw();
                last = printReportBw();
            }
            out.print(RESULT_LINE);
            handShake(my[0]);
            xchgBwReports(last);
            closeConnection();
        }

        /** send_bw.c. */
        void sendBw() {
            for (int i = 0; i < p.numOfQps; i++) {
                rem[i] = handShake(my[i]);
            }
            checkGidCompatibility();
            connectQps();
            handShake(my[0]);
            printDests(true);
            out.print(RESULT_LINE);
            out.print((p.gbits ? RESULT_FMT_G : RESULT_FMT) + "\n");
            out.flush();
            if (p.runAll) {
                long maxPow = 24;
                for (int i = 1; i < maxPow; i++) {
                    p.size = 1L << i;
                    if (p.machine == Machine.SERVER) {
                        setRecvWqes();
                    }
                    handShake(my[0]);
                    if (p.machine == Machine.CLIENT) {
                        runIterBw();
                    } else {
                        runIterBwServer();
                    }
                    printReportBw();
                    handShake(my[0]);
                }
            } else {
                if (p.machine == Machine.SERVER) {
                    setRecvWqes();
                }
                handShake(my[0]);
                if (p.machine == Machine.CLIENT) {
                    runIterBw();
                } else {
                    runIterBwServer();
                }
                printReportBw();
            }
            out.print(RESULT_LINE);
            closeConnection();
        }

        /** write_lat.c: no closing exchange. */
        void writeLat() {
            handShake(my[0]);
            rem[0] = handShake(my[0]);
            checkGidCompatibility();
            connectQps();
            printDests(true);
            handShake(my[0]);
            printLatHeader();
            if (p.runAll) {
                for (int i = 1; i < 24; i++) {
                    p.size = 1L << i;
                    runIterLatWrite();
                    printReportLat();
                }
            } else {
                runIterLatWrite();
                printReportLat();
            }
            out.print(RESULT_LINE);
        }

        /** send_lat.c. */
        void sendLat() {
            rem[0] = handShake(my[0]);
            checkGidCompatibility();
            connectQps();
            handShake(my[0]);
            printDests(true);
            printLatHeader();
            if (p.runAll) {
                for (int i = 1; i < 24; i++) {
                    p.size = 1L << i;
                    setRecvWqes();
                    handShake(my[0]);
                    runIterLatSend();
                    printReportLat();
                }
            } else {
                setRecvWqes();
                handShake(my[0]);
                runIterLatSend();
                printReportLat();
            }
            out.print(RESULT_LINE);
            closeConnection();
        }

        /** read_lat.c, atomic_lat.c: only the client measures. */
        void readAtomicLat() {
            handShake(my[0]);
            rem[0] = handShake(my[0]);
            checkGidCompatibility();
            connectQps();
            printDests(true);
            handShake(my[0]);
            if (p.machine == Machine.SERVER) {
                closeConnection();
                out.print(RESULT_LINE);
                return;
            }
            printLatHeader();
            if (p.runAll && verb == Verb.READ) {
                for (int i = 1; i < 24; i++) {
                    p.size = 1L << i;
                    runIterLat();
                    printReportLat();
                }
            } else {
                runIterLat();
                printReportLat();
            }
            closeConnection();
            out.print(RESULT_LINE);
        }

        void printLatHeader() {
            out.print(RESULT_LINE);
            out.print((p.duration ? RESULT_FMT_LAT_DUR : RESULT_FMT_LAT) + "\n");
            out.flush();
        }

        // ------------------------------------------------------------------ device, link, connection

        void findDevice() {
            dev = ToolClient.findDevice(core, p.ibDevname, err);
            if (dev == null) {
                err.append(" Unable to find the Infiniband/RoCE device\n");
                throw exit(1);
            }
            p.ibDevname = dev.name();
        }

        /** {@code check_link}: link layer, the default GID index, max inline and outstanding reads. */
        void checkLink() {
            PortAttr pa;
            try {
                if (p.ibPort > dev.physPortCnt()) {
                    throw new VerbsException(org.jrdma.ib.core.Errno.EINVAL, "port");
                }
                pa = dev.queryPort(p.ibPort);
            } catch (VerbsException e) {
                err.append(" Unable to query port ").append(p.ibPort).append(" attributes\n");
                err.append(" Couldn't set the link layer\n");
                err.append(" Couldn't get context for the device\n");
                throw exit(1);
            }
            if (pa.state() != org.jrdma.ib.core.PortState.ACTIVE) {
                err.append(" Port number ").append(p.ibPort).append(" state is ").append(pa.state().name()).append('\n');
                err.append(" Couldn't set the link layer\n");
                err.append(" Couldn't get context for the device\n");
                throw exit(1);
            }
            link = dev.linkLayer(p.ibPort);
            if (link == LinkLayer.ETHERNET && p.gidIndex == -1) {
                p.gidIndex = 0;
            }
            // ctx_set_max_inline: no jrdma device is one perftest recognizes
            if (p.inlineSize != Params.DEF_INLINE) {
                out.print(RESULT_LINE);
                warn("Device not recognized to implement inline feature. Disabling it\n");
            }
            p.inlineSize = 0;
            if (verb == Verb.READ || verb == Verb.ATOMIC) {
                int max = dev.queryDevice().maxQpRdAtom();
                if (p.outReads > max) {
                    out.print(RESULT_LINE);
                    warn(" Number of outstanding reads is above max = " + max + "\n Changing to that max value\n");
                    p.outReads = max;
                } else if (p.outReads <= 0) {
                    p.outReads = max;
                }
            } else {
                p.outReads = 1;
            }
        }

        void establishConnection() {
            try {
                if (p.rdmaCm) {
                    cmComm = CmComm.establish(this);
                    comm = cmComm;
                    return;
                }
                if (p.machine == Machine.CLIENT) {
                    comm = Comm.Tcp.connect(p.servername, p.port);
                    if (comm == null) {
                        err.append("Couldn't connect to ").append(p.servername).append(':').append(p.port).append('\n');
                        err.append("Unable to open file descriptor for socket connection");
                        err.append(" Unable to init the socket connection\n");
                        throw exit(1);
                    }
                } else {
                    comm = Comm.Tcp.accept(p.port, listening);
                }
            } catch (java.nio.channels.ClosedByInterruptException e) {
                throw interrupted();
            } catch (java.net.UnknownHostException e) {
                err.append(p.servername).append(" for port ").append(p.port).append(": Name or service not known\n");
                err.append("Problem in resolving basic address and port\n");
                err.append("Unable to open file descriptor for socket connection");
                err.append(" Unable to init the socket connection\n");
                throw exit(1);
            } catch (IOException e) {
                if (p.machine == Machine.CLIENT) {
                    err.append("Couldn't connect to ").append(p.servername).append(':').append(p.port).append('\n');
                } else {
                    err.append("Couldn't listen to port ").append(p.port).append('\n');
                }
                err.append("Unable to open file descriptor for socket connection");
                err.append(" Unable to init the socket connection\n");
                throw exit(1);
            }
        }

        /** {@code exchange_versions}, {@code check_version_compatibility}, {@code check_sys_data}. */
        void exchangeVersions() {
            byte[] v = new byte[16];
            byte[] mine = Params.VERSION.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(mine, 0, v, 0, mine.length);
            byte[] rv = xchg(v);
            int n = 0;
            while (n < rv.length && rv[n] != 0) {
                n++;
            }
            remVersion = new String(rv, 0, n, StandardCharsets.US_ASCII);
            if (atof(remVersion) < 5.70) {
                err.append("Current implementation is not compatible with versions older than 5.70\n");
                throw exit(1);
            }
            int remCycle = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt(p.cycleBuffer).array())).getInt();
            int remCache = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt(p.cacheLineSize).array())).getInt();
            p.cycleBuffer = Math.max(p.cycleBuffer, remCycle);
            p.cacheLineSize = Math.max(p.cacheLineSize, remCache);
        }

        /** {@code set_mtu} then {@code check_mtu}: the enum as {@code "%d"} in two bytes, the smaller one wins. */
        void checkMtu() {
            PortAttr pa = dev.queryPort(p.ibPort);
            Mtu active = pa.activeMtu();
            Mtu cur = active;
            if (p.mtu != 0) {
                Mtu want = switch (p.mtu) {
                    case 256, 512, 1024, 2048, 4096 -> Mtu.ofBytes(p.mtu);
                    default -> null;
                };
                if (want == null) {
                    err.append(" Invalid MTU - ").append(p.mtu).append(" \n");
                    err.append(" Please choose mtu from {256,512,1024,2048,4096}\n");
                    err.append(" Will run with the port active mtu - ").append(active.code()).append('\n');
                    want = active;
                }
                if (want.code() > active.code()) {
                    out.print("Requested mtu is higher than active mtu \n");
                    out.print("Changing to active mtu - " + active.code() + "\n");
                    want = active;
                }
                cur = want;
            }
            byte[] mine = new byte[2];
            mine[0] = (byte) ('0' + cur.code());
            byte[] r = xchg(mine);
            int remMtu = (r[0] >= '0' && r[0] <= '9') ? r[0] - '0' : 0;
            currMtu = remMtu >= 1 && remMtu <= 5 && cur.code() > remMtu ? Mtu.ofCode(remMtu) : cur;
        }

        // ------------------------------------------------------------------ resources

        /** {@code ctx_init}: buffer and MR, CQs, the QPs in INIT. */
        void ctxInit(IbDevice d) {
            allocBuffers(d);
            qps = new QueuePair[p.numOfQps];
            for (int i = 0; i < p.numOfQps; i++) {
                try {
                    qps[i] = pd.createQp(qpInitAttr());
                } catch (VerbsException e) {
                    err.append(" Unable to create QP.\n");
                    err.append("Failed to create QP.\n");
                    err.append(" Couldn't create IB resources\n");
                    throw exit(1);
                }
                try {
                    qps[i].modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(p.ibPort)
                            .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC));
                } catch (VerbsException e) {
                    err.append(" Failed to modify QP to INIT, ret=22\n");
                    err.append("Failed to modify QP to INIT\n");
                    err.append(" Couldn't create IB resources\n");
                    throw exit(1);
                }
            }
        }

        void allocBuffers(IbDevice d) {
            buffSize = Math.max(p.size, p.cycleBuffer);
            long total = 2 * p.numOfQps * buffSize;
            if (total > Integer.MAX_VALUE) {
                err.append("Couldn't allocate work buf.\n");
                throw exit(1);
            }
            buf = ByteBuffer.allocateDirect((int) total);
            byte seed = (byte) (p.machine == Machine.CLIENT ? 0x5a : 0x3c);
            for (int i = 0; i < buf.capacity(); i++) {
                buf.put(i, (byte) (seed + i * 7));
            }
            try {
                pd = d.allocPd(owner);
            } catch (VerbsException e) {
                err.append("Couldn't allocate PD\n");
                err.append(" Couldn't create IB resources\n");
                throw exit(1);
            }
            try {
                mr = pd.regMr(buf.duplicate().clear(),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
            } catch (VerbsException e) {
                err.append("Couldn't allocate MR\n");
                err.append(" Couldn't create IB resources\n");
                throw exit(1);
            }
            try {
                sendCq = d.createCq(owner, new CqInitAttr().cqe(Math.max(1, p.txDepth * p.numOfQps)));
                recvCq = d.createCq(owner, new CqInitAttr().cqe(
                        Math.max(1, (verb == Verb.SEND ? p.rxDepth : 1) * p.numOfQps)));
            } catch (VerbsException e) {
                err.append("Couldn't create CQ\n");
                err.append(" Couldn't create IB resources\n");
                throw exit(1);
            }
        }

        QpInitAttr qpInitAttr() {
            return new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                    .cap(new QpCap().maxSendWr(p.txDepth).maxRecvWr(verb == Verb.SEND ? p.rxDepth : 1)
                            .maxSendSge(1).maxRecvSge(1).maxInlineData(p.inlineSize));
        }

        /** {@code set_up_connection}: what this side tells the other of each QP. */
        void setUpConnection() {
            withGid = p.gidIndex != -1;
            Gid gid = Gid.ZERO;
            int lid = 0;
            try {
                lid = dev.queryPort(p.ibPort).lid();
                if (withGid) {
                    if (!p.useGidUser) {
                        p.gidIndex = bestGidIndex();
                    }
                    gid = dev.queryGid(p.ibPort, p.gidIndex);
                }
            } catch (VerbsException e) {
                err.append(" Unable to set up socket connection\n");
                throw exit(1);
            }
            my = new Dest[p.numOfQps];
            rem = new Dest[p.numOfQps];
            for (int i = 0; i < p.numOfQps; i++) {
                my[i] = new Dest(lid, p.outReads, qps[i].qpNum(), RANDOM.nextInt(1 << 24), mr.rkey(),
                        mr.iova() + (p.numOfQps + i) * buffSize, gid.raw(), 0);
            }
        }

        /** {@code get_best_gid_index}: a RoCE v2 GID (IPv4-mapped) if the table has one, else 0. */
        int bestGidIndex() {
            int len = dev.queryPort(p.ibPort).gidTblLen();
            for (int i = 0; i < len; i++) {
                try {
                    Gid g = dev.queryGid(p.ibPort, i);
                    if (g.isV4Mapped()) {
                        return i;
                    }
                } catch (VerbsException e) {
                    break;
                }
            }
            return 0;
        }

        void checkGidCompatibility() {
            if (p.rdmaCm || !withGid) {
                return;
            }
            if (Gid.of(my[0].gid()).isV4Mapped() != Gid.of(rem[0].gid()).isV4Mapped()) {
                err.append("\n Found Incompatibility issue with GID types.\n");
                err.append(" Please Try to use a different IP version.\n\n");
                throw exit(1);
            }
        }

        /** {@code ctx_connect}: RTR and RTS with perftest's attributes (the RDMA CM did it for {@code -R}). */
        void connectQps() {
            if (p.rdmaCm) {
                return;
            }
            for (int i = 0; i < p.numOfQps; i++) {
                AhAttr av = new AhAttr().dlid(rem[i].lid() & 0xffff).sl(p.sl).srcPathBits(0).portNum(p.ibPort);
                if (withGid) {
                    av.grh(new GlobalRoute().dgid(Gid.of(rem[i].gid())).sgidIndex(p.gidIndex).hopLimit(0xff)
                            .trafficClass(0));
                }
                try {
                    QpAttr rtr = new QpAttr().state(QpState.RTR).av(av).pathMtu(currMtu).destQpNum(rem[i].qpn())
                            .rqPsn(rem[i].psn()).maxDestRdAtomic(my[i].outReads()).minRnrTimer(12);
                    qps[i].modify(rtr);
                } catch (VerbsException e) {
                    err.append("Failed to modify QP ").append(qps[i].qpNum()).append(" to RTR\n");
                    err.append(" Unable to Connect the HCA's through the link\n");
                    throw exit(1);
                }
                try {
                    qps[i].modify(new QpAttr().state(QpState.RTS).sqPsn(my[i].psn()).timeout(p.qpTimeout).retryCnt(7)
                            .rnrRetry(7).maxRdAtomic(Math.max(1, rem[i].outReads())));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP to RTS\n");
                    err.append(" Unable to Connect the HCA's through the link\n");
                    throw exit(1);
                }
            }
        }

        // ------------------------------------------------------------------ the side channel

        byte[] xchg(byte[] mine) {
            try {
                return comm.xchg(mine);
            } catch (java.nio.channels.ClosedByInterruptException e) {
                throw interrupted();
            } catch (IOException e) {
                checkInterrupt();
                err.append("ethernet_read_data: Couldn't read reports\n");
                err.append(" Unable to read from socket/rdma_cm\n");
                err.append(" Failed to exchange data between server and clients\n");
                throw exit(1);
            }
        }

        Dest handShake(Dest mine) {
            Dest r;
            try {
                r = comm.handShake(mine, withGid);
            } catch (java.nio.channels.ClosedByInterruptException e) {
                throw interrupted();
            } catch (IOException e) {
                checkInterrupt();
                err.append("ethernet_read_keys: Couldn't read remote address\n");
                err.append(" Unable to read from socket/rdma_cm\n");
                err.append("Failed to exchange data between server and clients\n");
                throw exit(1);
            }
            if (r == null) {
                err.append("Couldn't parse line <...>\n");
                err.append(" Unable to read from socket/rdma_cm\n");
                err.append("Failed to exchange data between server and clients\n");
                throw exit(1);
            }
            return r;
        }

        void closeConnection() {
            try {
                comm.closeConnection(my[0], withGid);
            } catch (java.nio.channels.ClosedByInterruptException e) {
                throw interrupted();
            } catch (IOException e) {
                checkInterrupt();
                err.append("Failed to close connection between server and client\n");
                throw exit(1);
            }
        }

        // ------------------------------------------------------------------ printing

        /** A warning on stderr (the run goes on): out first, so it lands where perftest's would. */
        void warn(String text) {
            if (warn == null) {
                err.append(text);
                return;
            }
            out.flush();
            warn.print(text);
            warn.flush();
        }

        void printTestInfo() {
            StringBuilder o = new StringBuilder();
            o.append(RESULT_LINE);
            o.append("                    ");
            o.append(switch (verb) {
                case SEND -> "Send";
                case WRITE -> "RDMA_Write";
                case READ -> "RDMA_Read";
                case ATOMIC -> "Atomic";
            }).append(' ');
            if (verb == Verb.ATOMIC) {
                o.append(p.fetchAndAdd ? "FETCH_AND_ADD" : "CMP_AND_SWAP").append(' ');
            }
            o.append(tst == Tst.BW ? "BW " : "Latency ");
            o.append("Test\n");
            o.append(" Dual-port       : OFF\t\tDevice         : ").append(p.ibDevname).append('\n');
            o.append(" Number of qps   : ").append(p.numOfQps).append("\t\tTransport type : IB\n");
            o.append(" Connection type : RC\t\tUsing SRQ      : OFF\n");
            o.append(" PCIe relax order: ").append(verb == Verb.WRITE && tst == Tst.LAT ? "OFF" : "ON").append('\n');
            o.append(" ibv_wr* API     : OFF\n");
            if (p.machine == Machine.CLIENT) {
                o.append(" TX depth        : ").append(p.txDepth).append('\n');
            }
            if (verb == Verb.SEND && p.machine == Machine.SERVER) {
                o.append(" RX depth        : ").append(p.rxDepth).append('\n');
            }
            if (tst == Tst.BW) {
                o.append(" CQ Moderation   : ").append(p.cqMod).append('\n');
            }
            o.append(" Mtu             : ").append(currMtu.bytes()).append("[B]\n");
            o.append(" Link type       : ").append(link == LinkLayer.ETHERNET ? "Ethernet" : "IB").append('\n');
            if (p.gidIndex != -1) {
                o.append(" GID index       : ").append(p.gidIndex).append('\n');
            }
            if (verb != Verb.READ && verb != Verb.ATOMIC) {
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

        /** {@code ctx_print_pingpong_data} for the local QPs, then (after the REMOTE handshake done by the caller) the remote ones. */
        void printDests(boolean remoteHandshake) {
            for (int i = 0; i < p.numOfQps; i++) {
                printDest("local", my[i]);
            }
            for (int i = 0; i < p.numOfQps; i++) {
                if (remoteHandshake) {
                    rem[i] = handShake(my[i]);
                }
                printDest("remote", rem[i]);
            }
            out.flush();
        }

        void printDest(String side, Dest d) {
            StringBuilder o = new StringBuilder();
            o.append(' ').append(side).append(" address: LID ").append(Printf.altHex(d.lid() & 0xffffffffL, 4))
                    .append(" QPN ").append(Printf.altHex(d.qpn() & 0xffffffffL, 6))
                    .append(" PSN ").append(Printf.altHex(d.psn() & 0xffffffffL, 6));
            if (verb == Verb.READ) {
                o.append(" OUT ").append(Printf.altHex(d.outReads() & 0xffffffffL, 4));
            }
            if (verb == Verb.READ || verb == Verb.WRITE) {
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

        // ------------------------------------------------------------------ posting helpers

        SendWr sendWr(int qp) {
            long local = mr.iova() + qp * buffSize;
            SendWr wr = new SendWr().wrId(qp).sgList(new Sge(local, (int) p.size, mr.lkey()));
            switch (verb) {
                case SEND -> wr.opcode(WrOpcode.SEND);
                case WRITE -> wr.opcode(WrOpcode.RDMA_WRITE).remote(rem[qp].vaddr(), rem[qp].rkey());
                case READ -> wr.opcode(WrOpcode.RDMA_READ).remote(rem[qp].vaddr(), rem[qp].rkey());
                case ATOMIC -> {
                    wr.opcode(p.fetchAndAdd ? WrOpcode.ATOMIC_FETCH_AND_ADD : WrOpcode.ATOMIC_CMP_AND_SWP)
                            .remote(rem[qp].vaddr(), rem[qp].rkey());
                    if (p.fetchAndAdd) {
                        wr.compareAdd(1);
                    } else {
                        wr.swap(0);
                    }
                }
            }
            return wr;
        }

        void post(QueuePair qp, SendWr wr, String what) {
            try {
                qp.postSend(wr);
            } catch (VerbsException e) {
                err.append(what);
                throw exit(1);
            }
        }

        /** {@code ctx_set_recv_wqes}: rx_depth receives per QP into the second half of the buffer. */
        void setRecvWqes() {
            for (int i = 0; i < p.numOfQps; i++) {
                RecvWr rwr = recvWr(i);
                for (int k = 0; k < p.rxDepth; k++) {
                    try {
                        qps[i].postRecv(rwr);
                    } catch (VerbsException e) {
                        err.append("Couldn't post recv Qp = ").append(i).append(" With ").append(k).append('\n');
                        err.append(" Failed to post receive recv_wqes\n");
                        throw exit(1);
                    }
                }
            }
        }

        RecvWr recvWr(int qp) {
            return new RecvWr().wrId(qp).sgList(new Sge(mr.iova() + (p.numOfQps + qp) * buffSize, (int) p.size, mr.lkey()));
        }

        int poll(CompletionQueue cq, WorkCompletion[] wc, int n) {
            return cq.poll(wc, n);
        }

        void completionError(WorkCompletion wc, String where, String counters) {
            err.append(" Completion with error at ").append(where).append('\n');
            err.append(" Failed status ").append(wcStatusCode(wc.status())).append(": wr_id ").append((int) wc.wrId())
                    .append(" syndrom 0x").append(Integer.toHexString(wc.vendorErr())).append('\n');
            err.append(counters);
            throw exit(1);
        }

        // ------------------------------------------------------------------ run_iter_*

        /** {@code run_iter_bw}: up to tx depth outstanding per QP, a CQE every {@code cq_mod}. */
        void runIterBw() {
            int n = p.numOfQps;
            long iters = p.iters;
            long totIters = iters * n;
            long[] scnt = new long[n];
            long[] ccnt = new long[n];
            SendWr[] wr = new SendWr[n];
            for (int i = 0; i < n; i++) {
                wr[i] = sendWr(i);
            }
            tposted = new long[(int) Math.max(1, totIters)];
            tcompleted = new long[(int) Math.max(1, totIters)];
            WorkCompletion[] wc = wcs(16);
            if (p.duration) {
                clock = new DurationClock(p);
                clock.start();
                iters = 0;
                p.iters = 0;
            }
            if (!p.duration && p.noPeak) {
                tposted[0] = System.nanoTime();
            }
            long totscnt = 0;
            long totccnt = 0;
            int empty = 0;
            while (totscnt < totIters || totccnt < totIters || (p.duration && clock.state() != DurationClock.END)) {
                for (int index = 0; index < n; index++) {
                    while ((scnt[index] < p.iters || p.duration) && scnt[index] - ccnt[index] + 1 <= p.txDepth) {
                        int flags = SendFlags.SIGNALED;
                        if (scnt[index] % p.cqMod == 0 && p.cqMod > 1
                                && !(scnt[index] == p.iters - 1 && !p.duration)) {
                            flags = 0;
                        }
                        if (p.cqMod == 1 || scnt[index] % p.cqMod == p.cqMod - 1
                                || (!p.duration && scnt[index] == p.iters - 1)) {
                            flags = SendFlags.SIGNALED;
                        } else {
                            flags = 0;
                        }
                        if (!p.noPeak) {
                            tposted[(int) totscnt] = System.nanoTime();
                        }
                        if (p.duration && clock.state() == DurationClock.END) {
                            break;
                        }
                        post(qps[index], wr[index].sendFlags(flags),
                                "Couldn't post send: qp " + index + " scnt=" + scnt[index] + " \n");
                        scnt[index]++;
                        totscnt++;
                    }
                }
                if (totccnt < totIters || (p.duration && totccnt < totscnt)) {
                    int ne = poll(sendCq, wc, wc.length);
                    if (ne > 0) {
                        empty = 0;
                        for (int i = 0; i < ne; i++) {
                            int id = (int) wc[i].wrId();
                            if (wc[i].status() != WcStatus.SUCCESS) {
                                completionError(wc[i], "client", "scnt=" + totscnt + ", ccnt=" + totccnt + "\n");
                            }
                            long add = p.cqMod;
                            if (!p.duration && ccnt[id] + add > p.iters) {
                                add = p.iters - ccnt[id]; // the last, explicitly signaled WR
                            }
                            ccnt[id] += add;
                            totccnt += add;
                            if (!p.noPeak) {
                                tcompleted[(int) Math.min(totccnt, totIters) - 1] = System.nanoTime();
                            }
                            if (p.duration && clock.state() == DurationClock.SAMPLE) {
                                p.iters += p.cqMod;
                            }
                        }
                    } else {
                        idle(empty++);
                    }
                } else if (p.duration) {
                    idle(empty++);
                }
            }
            if (p.noPeak && !p.duration) {
                tcompleted[0] = System.nanoTime();
            }
            if (p.duration) {
                tposted[0] = clock.sampleStart;
                tcompleted[0] = clock.sampleEnd;
            }
        }

        /** {@code run_iter_bw_server}: count receives, repost while more are to come. */
        void runIterBwServer() {
            int n = p.numOfQps;
            long totIters = p.iters * n;
            long[] posted = new long[n];
            Arrays.fill(posted, p.rxDepth);
            RecvWr[] rwr = new RecvWr[n];
            for (int i = 0; i < n; i++) {
                rwr[i] = recvWr(i);
            }
            tposted = new long[1];
            tcompleted = new long[1];
            WorkCompletion[] wc = wcs(16);
            long rcnt = 0;
            boolean first = true;
            int empty = 0;
            while (rcnt < totIters || (p.duration && (clock == null || clock.state() != DurationClock.END))) {
                int ne = poll(recvCq, wc, wc.length);
                if (ne <= 0) {
                    idle(empty++);
                    continue;
                }
                empty = 0;
                if (first) {
                    first = false;
                    if (p.duration) {
                        clock = new DurationClock(p);
                        clock.start();
                        p.iters = 0;
                    } else {
                        tposted[0] = System.nanoTime();
                    }
                }
                for (int i = 0; i < ne; i++) {
                    int id = (int) wc[i].wrId();
                    if (wc[i].status() != WcStatus.SUCCESS) {
                        completionError(wc[i], "server", "rcnt=" + rcnt + "\n");
                    }
                    rcnt++;
                    if (p.duration && clock.state() == DurationClock.SAMPLE) {
                        p.iters++;
                    }
                    if (p.duration || posted[id] + 1 <= p.iters) {
                        try {
                            qps[id].postRecv(rwr[id]);
                        } catch (VerbsException e) {
                            err.append("Couldn't post recv Qp=").append(id).append(" rcnt=").append(rcnt).append('\n');
                            throw exit(15);
                        }
                        posted[id]++;
                    }
                }
            }
            if (p.duration) {
                tposted[0] = clock.sampleStart;
                tcompleted[0] = clock.sampleEnd;
            } else {
                tcompleted[0] = System.nanoTime();
            }
        }

        /** {@code run_iter_lat_write}: ping-pong of RDMA WRITEs, each side spinning on the last byte of its buffer. */
        void runIterLatWrite() {
            SendWr wr = sendWr(0).sendFlags(SendFlags.SIGNALED);
            int postAt = (int) (p.size - 1);
            int pollAt = (int) (p.numOfQps * buffSize + p.size - 1);
            long iters = p.iters;
            tposted = new long[(int) Math.max(1, iters)];
            if (p.duration) {
                clock = new DurationClock(p);
                clock.start();
                p.iters = 0;
                iters = 0;
            }
            long scnt = 0;
            long ccnt = 0;
            long rcnt = 0;
            WorkCompletion[] wc = wcs(1);
            while (scnt < iters || ccnt < iters || rcnt < iters || (p.duration && clock.state() != DurationClock.END)) {
                if ((rcnt < iters || p.duration) && !(scnt < 1 && p.machine == Machine.SERVER)) {
                    rcnt++;
                    int spins = 0;
                    while (readByte(pollAt) != (byte) rcnt && !(p.duration && clock.state() == DurationClock.END)) {
                        idle(spins++);
                    }
                }
                if (scnt < iters || p.duration) {
                    if (!p.duration) {
                        tposted[(int) scnt] = System.nanoTime();
                    }
                    buf.put(postAt, (byte) ++scnt);
                    VarHandle.fullFence();
                    post(qps[0], wr, "Couldn't post send: scnt=" + scnt + "\n");
                }
                if (p.duration && clock.state() == DurationClock.END) {
                    break;
                }
                if (ccnt < iters || p.duration) {
                    int ne;
                    int empty = 0;
                    while ((ne = poll(sendCq, wc, 1)) == 0) {
                        idle(empty++);
                    }
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + ccnt + "\n");
                    }
                    ccnt++;
                    if (p.duration && clock.state() == DurationClock.SAMPLE) {
                        p.iters++;
                    }
                }
            }
            if (p.duration) {
                tposted = new long[] {clock.sampleStart};
                tcompleted = new long[] {clock.sampleEnd};
            }
        }

        byte readByte(int at) {
            int word = at & ~3;
            int v = (int) INTS.getVolatile(buf, word);
            int shift = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (at - word) * 8 : (3 - (at - word)) * 8;
            return (byte) (v >>> shift);
        }

        /** {@code run_iter_lat}: one READ or atomic at a time, the time between posts measured. */
        void runIterLat() {
            SendWr wr = sendWr(0).sendFlags(SendFlags.SIGNALED);
            long iters = p.iters;
            tposted = new long[(int) Math.max(1, iters)];
            if (p.duration) {
                clock = new DurationClock(p);
                clock.start();
                p.iters = 0;
                iters = 0;
            }
            long scnt = 0;
            WorkCompletion[] wc = wcs(1);
            while (scnt < iters || (p.duration && clock.state() != DurationClock.END)) {
                if (!p.duration) {
                    tposted[(int) scnt++] = System.nanoTime();
                }
                post(qps[0], wr, "Couldn't post send: scnt=" + scnt + "\n");
                if (p.duration && clock.state() == DurationClock.END) {
                    break;
                }
                int ne;
                int empty = 0;
                while ((ne = poll(sendCq, wc, 1)) == 0) {
                    idle(empty++);
                }
                if (wc[0].status() != WcStatus.SUCCESS) {
                    completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + scnt + "\n");
                }
                if (p.duration && clock.state() == DurationClock.SAMPLE) {
                    p.iters++;
                }
            }
            if (p.duration) {
                tposted = new long[] {clock.sampleStart};
                tcompleted = new long[] {clock.sampleEnd};
            }
        }

        /** {@code run_iter_lat_send}: SEND ping-pong, the server answering each receive. */
        void runIterLatSend() {
            SendWr wr = sendWr(0);
            RecvWr rwr = recvWr(0);
            long iters = p.iters;
            tposted = new long[(int) Math.max(1, iters)];
            long scnt = 0;
            long rcnt = 0;
            boolean firstRx = true;
            WorkCompletion[] wc = wcs(1);
            while (scnt < iters || rcnt < iters || (p.duration && (clock == null || clock.state() != DurationClock.END))) {
                if ((rcnt < iters || p.duration) && !(scnt < 1 && p.machine == Machine.CLIENT)) {
                    int empty = 0;
                    int ne;
                    while ((ne = poll(recvCq, wc, 1)) == 0) {
                        if (p.duration && clock != null && clock.state() == DurationClock.END) {
                            break;
                        }
                        idle(empty++);
                    }
                    if (ne > 0) {
                        if (firstRx) {
                            firstRx = false;
                            if (p.duration) {
                                clock = new DurationClock(p);
                                clock.start();
                                p.iters = 0;
                                iters = 0;
                            }
                        }
                        if (wc[0].status() != WcStatus.SUCCESS) {
                            completionError(wc[0], "server", "rcnt=" + rcnt + "\n");
                        }
                        rcnt++;
                        if (p.duration && clock.state() == DurationClock.SAMPLE) {
                            p.iters++;
                        }
                        if (p.duration || rcnt + p.rxDepth <= iters) {
                            try {
                                qps[0].postRecv(rwr);
                            } catch (VerbsException e) {
                                err.append("Couldn't post recv: rcnt=").append(rcnt).append('\n');
                                throw exit(15);
                            }
                        }
                    }
                }
                if (p.duration && p.machine == Machine.CLIENT && clock == null) {
                    clock = new DurationClock(p);
                    clock.start();
                    p.iters = 0;
                    iters = 0;
                }
                if (scnt < iters || (p.duration && clock.state() != DurationClock.END)) {
                    if (!p.duration) {
                        tposted[(int) scnt] = System.nanoTime();
                    }
                    scnt++;
                    boolean signal = scnt % p.cqMod == 0 || (!p.duration && scnt == iters);
                    if (p.duration && clock.state() == DurationClock.END) {
                        break;
                    }
                    post(qps[0], wr.sendFlags(signal ? SendFlags.SIGNALED : 0), "Couldn't post send: scnt=" + scnt + " \n");
                    if (signal) {
                        int empty = 0;
                        while (poll(sendCq, wc, 1) == 0) {
                            idle(empty++);
                        }
                        if (wc[0].status() != WcStatus.SUCCESS) {
                            completionError(wc[0], "client", "scnt=" + scnt + ", ccnt=" + scnt + "\n");
                        }
                    }
                }
            }
            if (p.duration) {
                tposted = new long[] {clock.sampleStart};
                tcompleted = new long[] {clock.sampleEnd};
            }
        }

        // ------------------------------------------------------------------ reports

        record BwReport(long size, long iters, double bwPeak, double bwAvg, double msgRate) {
        }

        /** {@code print_report_bw}. */
        BwReport printReportBw() {
            int n = p.numOfQps;
            long iters = p.iters;
            long optDelta = tcompleted[0] - tposted[0];
            if (optDelta < 0) {
                optDelta = Long.MAX_VALUE; // cycles_t is unsigned: an unset tcompleted[0] never wins the minimum
            }
            if (!p.noPeak) {
                long tot = iters * n;
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
            }
            double cyclesToUnits = CPU_MHZ * 1000000;
            long tsize = p.size;
            long calc = p.duration ? iters : iters * n;
            int location = p.noPeak ? 0 : (int) (calc - 1);
            long formatFactor = p.gbits ? 125000000 : 0x100000;
            double sum = (double) (tcompleted[location] - tposted[0]);
            double bwAvg = ((double) tsize * calc * cyclesToUnits) / (sum * formatFactor);
            double msgRate = ((double) calc * cyclesToUnits) / (sum * 1000000);
            long peakUp = (p.noPeak ? 0 : 1) * tsize * (long) cyclesToUnits;
            long peakDown = Math.max(1, optDelta) * formatFactor;
            BwReport r = new BwReport(p.size, calc, (double) peakUp / peakDown, bwAvg, msgRate);
            printFullBwReport(r);
            return r;
        }

        void printFullBwReport(BwReport r) {
            boolean incAccuracy = r.bwAvg < 0.1 && p.gbits;
            if (incAccuracy) {
                out.print(Printf.f(" %-7d    %d           %-7.6f            %-7.6f            %-7.6f", r.size, r.iters,
                        r.bwPeak, r.bwAvg, r.msgRate));
            } else {
                out.print(Printf.f(" %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size, r.iters, r.bwPeak,
                        r.bwAvg, r.msgRate));
            }
            out.print("\n");
            out.flush();
        }

        /** {@code xchg_bw_reports}: size, iters (8 bytes from 5.33 on), peak, average, message rate, big-endian. */
        BwReport xchgBwReports(BwReport mine) {
            long size = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putLong(mine.size).array())).getLong();
            long iters;
            if (atof(remVersion) >= 5.33) {
                iters = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putLong(mine.iters).array())).getLong();
            } else {
                iters = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt((int) mine.iters).array())).getInt();
            }
            double peak = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.bwPeak).array())).getDouble();
            double avg = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.bwAvg).array())).getDouble();
            double rate = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.msgRate).array())).getDouble();
            return new BwReport(size, iters, peak, avg, rate);
        }

        void printReportLat() {
            if (p.duration) {
                printReportLatDuration();
                return;
            }
            int rttFactor = verb == Verb.READ || verb == Verb.ATOMIC ? 1 : 2;
            int measureCnt = (int) p.iters - 1;
            long[] delta = new long[measureCnt];
            for (int i = 0; i < measureCnt; i++) {
                delta[i] = tposted[i + 1] - tposted[i];
            }
            double cyclesToUnits = p.cycles ? 1 : CPU_MHZ;
            String units = p.cycles ? "cycles" : "usec";
            double q = cyclesToUnits * rttFactor;
            if (p.unsorted) {
                out.print("#, " + units + "\n");
                for (int i = 0; i < measureCnt; i++) {
                    out.print((i + 1) + ", " + gFormat(delta[i] / q) + "\n");
                }
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
                out.print("#, " + units + "\n");
                for (int i = 0; i < measureCnt; i++) {
                    out.print((i + 1) + ", " + gFormat(delta[i] / q) + "\n");
                }
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
                    p.size, p.iters, delta[0] / q, delta[measureCnt] / q, latency, average, stdev, delta[iters99] / q,
                    delta[iters999] / q));
            out.print("\n");
            out.flush();
        }

        void printReportLatDuration() {
            int rttFactor = verb == Verb.READ || verb == Verb.ATOMIC ? 1 : 2;
            long sample = tcompleted[0] - tposted[0];
            double latency = ((sample / CPU_MHZ) / rttFactor) / p.iters;
            double tps = p.iters / (sample / (CPU_MHZ * 1000000));
            out.print(Printf.f(" %-7d       %d            %-7.2f        %-7.2f", p.size, p.iters, latency, tps));
            out.print("\n");
            out.flush();
        }

        // ------------------------------------------------------------------ release

        void release() {
            if (cmComm != null) {
                cmComm.closeAll(this);
            }
            if (qps != null) {
                for (QueuePair qp : qps) {
                    if (qp != null && (cmComm == null || !cmComm.ownsQp(qp))) {
                        quietly(qp::destroy);
                    }
                }
            }
            if (sendCq != null) {
                quietly(sendCq::destroy);
            }
            if (recvCq != null) {
                quietly(recvCq::destroy);
            }
            if (mr != null) {
                quietly(mr::dereg);
            }
            if (pd != null) {
                quietly(pd::dealloc);
            }
            if (comm != null) {
                comm.close();
            }
        }
    }

    /** perftest's duration states, driven by elapsed time instead of SIGALRM. */
    static final class DurationClock {
        static final int START = 0;
        static final int SAMPLE = 1;
        static final int STOP = 2;
        static final int END = 3;
        final long marginNs;
        final long durationNs;
        long t0;
        long sampleStart;
        long sampleEnd;
        int state;

        DurationClock(Params p) {
            marginNs = p.margin * 1_000_000_000L;
            durationNs = p.durationSec * 1_000_000_000L;
        }

        void start() {
            t0 = System.nanoTime();
            state();
        }

        int state() {
            long now = System.nanoTime();
            long el = now - t0;
            if (state == START && el >= marginNs) {
                state = SAMPLE;
                sampleStart = now;
            }
            if (state == SAMPLE && el >= durationNs - marginNs) {
                state = STOP;
                sampleEnd = now;
            }
            if (state == STOP && el >= durationNs) {
                state = END;
            }
            return state;
        }
    }

    // ====================================================================== helpers

    static Runnable this_listening(Run r) {
        return r.tool().listening;
    }

    static long roundUp(long v, long m) {
        return ((v + m - 1) / m) * m;
    }

    static double atof(String s) {
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        try {
            return Double.parseDouble(s.substring(0, i));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

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

    static WorkCompletion[] wcs(int n) {
        WorkCompletion[] wc = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wc[i] = new WorkCompletion();
        }
        return wc;
    }

    static int wcStatusCode(WcStatus s) {
        return s.ordinal();
    }

    static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // gone with its device already
        }
    }
}
