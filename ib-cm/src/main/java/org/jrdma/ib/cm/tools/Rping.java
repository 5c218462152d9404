package org.jrdma.ib.cm.tools;

import static org.jrdma.ib.core.cli.Exit.interrupted;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.cm.RdmaCmEvent;
import org.jrdma.ib.cm.RdmaCmId;
import org.jrdma.ib.cm.RdmaConnParam;
import org.jrdma.ib.cm.RdmaPortSpace;
import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Strerror;
import org.jrdma.ib.core.cli.ToolClient;
import org.jrdma.ib.core.cli.ToolMain;

/**
 * {@code rping} of rdma-core 44 ({@code librdmacm/examples/rping.c}, v44.12): the same options, output,
 * exit statuses and wire protocol, so that it talks to a Linux rping.
 * <p>The protocol, per ping: the client SENDs the address of its start buffer
 * ({@code struct rping_rdma_info}: be64 buf, be32 rkey, be32 size, 16 bytes), the server RDMA READs
 * {@code size} bytes from it and SENDs a go-ahead (16 zero bytes); the client SENDs the address of its
 * RDMA buffer, the server RDMA WRITEs the ping string back ({@code strlen + 1} bytes) and SENDs a
 * go-ahead. The client's ping string is {@code "rdma-ping-%d: "} followed by the rotating pattern
 * {@code A..z} (starting one letter later each ping), NUL-terminated at {@code size - 1}.
 * <p>As in C, the client runs {@code -C} pings (0: forever) then disconnects; the server ignores
 * {@code -C} and serves until the client disconnects (then {@code "wait for RDMA_READ_ADV state 10"}
 * on stderr and status 0, as the real one). What rping prints to stdout ({@code -v} data, {@code -d}
 * debug lines, usage, getaddrinfo failures) goes to {@code out}; what it prints to stderr is collected:
 * {@link #execute} (the Gogo command) prints it to {@code err} on success or throws it as the
 * {@link CommandFailure} message with the exit status; {@link #run} prints it to {@code err} as it
 * comes and returns the status, as a process would.
 * <p>Exit statuses are rping's: 0, {@code EINVAL} (22) for bad options, 255 ({@code -1}) for a failed
 * run or a CM error event, the errno of a failed verb, and 130 when the calling thread is interrupted
 * (Ctrl-C, the bundle stopping): every wait ends, the connection is disconnected and everything the run
 * allocated is released.
 * <p>Deviations, where the JVM or the CM API cannot do what C does: {@code -q} (self-created QP, moved
 * by hand with {@code rdma_init_qp_attr}) uses the CM-created QP, as the CM API has no
 * {@code rdma_init_qp_attr}; the peer sees the same connection. A non-persistent server that gets a
 * second connect request while busy rejects it (rping.c blocks its CM thread forever there, and the
 * jrdma CM thread is shared). A CM error event ends the run with rping's status rather than
 * {@code exit()}ing the JVM. {@code %p} in debug lines prints an identity hash.
 * <p>Cut as rping.c is: this class has {@code main}, the options, the CM event handler and the server
 * and client flows; {@link RpingCb} is {@code struct rping_cb} (a connection's resources and work
 * requests), {@link RpingCq} the completion thread and handlers.
 */
public final class Rping {
    /** rping's default port. */
    public static final int PORT = 7174;
    /** {@code RPING_BUFSIZE}: the size limit (the check is {@code size > RPING_BUFSIZE - 1}). */
    static final int BUFSIZE = 64 * 1024;
    /** {@code RPING_SQ_DEPTH}. */
    static final int SQ_DEPTH = 16;
    /**
     * {@code RPING_MIN_BUFSIZE} = {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}: rping.c
     * includes no {@code <limits.h>} (nor do the headers it includes), so {@code INT_MAX} is not expanded
     * and the macro is {@code sizeof("INT_MAX") + sizeof("rdma-ping-%d: ")} = 8 + 15 = 23.
     */
    static final int MIN_BUFSIZE = 23;
    /** {@code sizeof(struct rping_rdma_info)}. */
    static final int INFO_SIZE = 16;
    /** The exit status of a run ended by an interrupt (128 + SIGINT). */
    public static final int INTERRUPTED = Exit.INTERRUPTED;
    static final int EINVAL = 22;
    /** {@code EAI_NONAME}. */
    static final int EAI_NONAME = -2;

    // enum test_state
    static final int IDLE = 1;
    static final int CONNECT_REQUEST = 2;
    static final int ADDR_RESOLVED = 3;
    static final int ROUTE_RESOLVED = 4;
    static final int CONNECTED = 5;
    static final int RDMA_READ_ADV = 6;
    static final int RDMA_READ_COMPLETE = 7;
    static final int RDMA_WRITE_ADV = 8;
    static final int RDMA_WRITE_COMPLETE = 9;
    static final int DISCONNECTED = 10;
    static final int ERROR = 11;

    private Rping() {
    }

    /** Where rping's stderr goes. */
    interface Stderr {
        void print(String s);
    }

    /**
     * Runs rping as a Gogo command: returns normally for exit status 0 (printing any stderr text to
     * {@code err}), else throws {@link CommandFailure} with the status and the stderr text.
     */
    public static void execute(RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        ToolMain.execute(out, err, sb -> main(cm, out, s -> {
            synchronized (sb) { // the CM and CQ threads print too
                sb.append(s);
            }
        }, args));
    }

    /** Runs rping as a process would: stderr printed to {@code err} as it comes, the exit status returned. */
    public static int run(RdmaCm cm, PrintStream out, PrintStream err, String... args) {
        return ToolMain.run(out, err, unused -> main(cm, out, s -> {
            synchronized (err) {
                err.print(s);
                err.flush();
            }
        }, args));
    }

    /** The C {@code main}: returns its return value (the status is its low byte). Never throws for what rping reports. */
    static int main(RdmaCm cm, PrintStream out, Stderr err, String[] args) {
        Tool t = new Tool(cm, out, err);
        try {
            int ret = t.main(args);
            return t.cmExit != 0 ? t.cmExit : ret;
        } catch (Exit e) {
            return e.status();
        } finally {
            boolean interrupted = Thread.interrupted();
            t.cleanup();
            out.flush();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code %p}. */
    static String ptr(Object o) {
        return o == null ? "(nil)" : "0x" + Integer.toHexString(System.identityHashCode(o));
    }

    // ------------------------------------------------------------------ one run

    static final class Tool {
        final RdmaCm cm;
        final PrintStream out;
        final Stderr err;
        volatile boolean debug;
        /** The status the C CM thread would have {@code exit()}ed with, or 0. */
        volatile int cmExit;
        final RpingCb cb = new RpingCb();
        boolean persistentServer;
        InetAddress sin = zeroAddress();
        InetAddress ssource;
        int port = PORT;
        final IbClient owner = ToolClient.named("rping");
        /** Persistent server: the connect requests not yet taken by the main loop. */
        final ConcurrentLinkedQueue<RdmaCmId> pendingRequests = new ConcurrentLinkedQueue<>();
        /** {@code accept_ready}: the non-persistent server takes one connect request. */
        final Semaphore acceptReady = new Semaphore(1);
        /** Persistent server threads and their control blocks, for cleanup. */
        final Set<Thread> serverThreads = ConcurrentHashMap.newKeySet();

        Tool(RdmaCm cm, PrintStream out, Stderr err) {
            this.cm = cm;
            this.out = out;
            this.err = err;
        }

        static InetAddress zeroAddress() {
            try {
                return InetAddress.getByAddress(new byte[4]);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        }

        void debug(String s) {
            if (debug) {
                out.print(s);
                out.flush();
            }
        }

        void printf(String s) {
            out.print(s);
            out.flush();
        }

        void perror(String what, VerbsException e) {
            err.print(what + ": " + Strerror.strerror(e.errno()) + "\n");
        }

        // -------------------------------------------------------------- main

        int main(String[] args) {
            int ret = 0;
            // opterr = 0: getopt's own diagnostics are not printed
            Getopt g = new Getopt("rping", args, "a:I:Pp:C:S:t:scvVdq", new Getopt.LongOption[0], new StringBuilder());
            for (int op; (op = g.next()) != -1; ) {
                switch (op) {
                    case 'a' -> {
                        InetAddress[] a = {null};
                        ret = getAddr(g.optarg, a);
                        if (a[0] != null) {
                            sin = a[0];
                        }
                    }
                    case 'I' -> {
                        InetAddress[] a = {null};
                        ret = getAddr(g.optarg, a);
                        if (a[0] != null) {
                            ssource = a[0];
                        }
                    }
                    case 'P' -> persistentServer = true;
                    case 'p' -> {
                        port = CNum.atoi(g.optarg) & 0xffff;
                        debug("port " + CNum.atoi(g.optarg) + "\n");
                    }
                    case 's' -> {
                        cb.server = 1;
                        debug("server\n");
                    }
                    case 'c' -> {
                        cb.server = 0;
                        debug("client\n");
                    }
                    case 'S' -> {
                        cb.size = CNum.atoi(g.optarg);
                        if (cb.size < MIN_BUFSIZE || cb.size > BUFSIZE - 1) {
                            err.print("Invalid size " + cb.size + " (valid range is " + MIN_BUFSIZE + " to "
                                    + BUFSIZE + ")\n");
                            ret = EINVAL;
                        } else {
                            debug("size " + CNum.atoi(g.optarg) + "\n");
                        }
                    }
                    case 'C' -> {
                        cb.count = CNum.atoi(g.optarg);
                        if (cb.count < 0) {
                            err.print("Invalid count " + cb.count + "\n");
                            ret = EINVAL;
                        } else {
                            debug("count " + cb.count + "\n");
                        }
                    }
                    case 'v' -> {
                        cb.verbose++;
                        debug("verbose\n");
                    }
                    case 'V' -> {
                        cb.validate++;
                        debug("validate data\n");
                    }
                    case 'd' -> debug = true;
                    case 'q' -> cb.selfCreateQp = true;
                    default -> {
                        usage("rping");
                        return EINVAL;
                    }
                }
            }
            if (ret != 0) {
                return ret;
            }
            if (cb.server == -1) {
                usage("rping");
                return EINVAL;
            }
            if (cb.size < 1) {
                // a bad -S overridden by a later -a/-I/-C resets ret, as in C; malloc(<=0) fails there
                cb.size = Math.max(cb.size, 1);
            }

            try {
                cb.cmId = cm.createId(this::cmaEventHandler, RdmaPortSpace.TCP);
            } catch (VerbsException e) {
                perror("rdma_create_id", e);
                return -1;
            }
            cb.cmId.context(cb);
            debug("created cm_id " + ptr(cb.cmId) + "\n");

            if (cb.server == 1) {
                ret = persistentServer ? runPersistentServer() : runServer(cb);
            } else {
                ret = runClient(cb);
            }

            debug("destroy cm_id " + ptr(cb.cmId) + "\n");
            RpingCb.closeQuietly(cb.cmId); // events still queued for it are delivered first, with cb.cmId still its own
            cb.cmId = null;
            return ret;
        }

        /** {@code get_addr}: 0, or the getaddrinfo error (printed to stdout, as rping does). */
        int getAddr(String dst, InetAddress[] addr) {
            try {
                if (dst.isEmpty()) {
                    throw new UnknownHostException(dst);
                }
                addr[0] = InetAddress.getByName(dst);
                return 0;
            } catch (UnknownHostException e) {
                printf("getaddrinfo failed (Name or service not known) - invalid hostname or IP address\n");
                return EAI_NONAME;
            }
        }

        void usage(String name) {
            StringBuilder u = new StringBuilder();
            u.append(name).append(" -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n");
            u.append(name).append(" -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n");
            u.append("\t-c\t\tclient side\n");
            u.append("\t-I\t\tSource address to bind to for client.\n");
            u.append("\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n");
            u.append("\t-v\t\tdisplay ping data to stdout\n");
            u.append("\t-V\t\tvalidate ping data\n");
            u.append("\t-d\t\tdebug printfs\n");
            u.append("\t-S size \tping data size\n");
            u.append("\t-C count\tping count times\n");
            u.append("\t-a addr\t\taddress\n");
            u.append("\t-p port\t\tport\n");
            u.append("\t-P\t\tpersistent server mode allowing multiple connections\n");
            u.append("\t-q\t\tuse self-created, self-modified QP\n");
            printf(u.toString());
        }

        // -------------------------------------------------------------- CM events

        /** {@code rping_cma_event_handler}, on the CM's thread. Always returns 0 to the CM (see {@link #cmExit}). */
        int cmaEventHandler(RdmaCmId cmaId, RdmaCmEvent event) {
            if (cmExit != 0) {
                return 0; // the C process is gone
            }
            Object ctx = cmaId.context();
            RpingCb c = ctx instanceof RpingCb x ? x : cb;
            if (event.listenId() != null && event.listenId().context() instanceof RpingCb l) {
                c = l;
            }
            int ret = 0;
            debug("cma_event type " + event.type().str() + " cma_id " + ptr(cmaId) + " ("
                    + (cmaId == c.cmId ? "parent" : "child") + ")\n");
            switch (event.type()) {
                case ADDR_RESOLVED -> {
                    c.state = ADDR_RESOLVED;
                    try {
                        cmaId.resolveRoute(2000);
                    } catch (VerbsException e) {
                        c.state = ERROR;
                        perror("rdma_resolve_route", e);
                        c.sem.release();
                    }
                }
                case ROUTE_RESOLVED -> {
                    c.wake(ROUTE_RESOLVED);
                }
                case CONNECT_REQUEST -> {
                    if (persistentServer) {
                        pendingRequests.add(cmaId);
                    } else if (!acceptReady.tryAcquire()) {
                        return 1; // busy: the CM rejects and destroys the new id (rping.c would block here)
                    }
                    c.state = CONNECT_REQUEST;
                    if (!persistentServer) {
                        c.childCmId = cmaId;
                    }
                    debug("child cma " + ptr(cmaId) + "\n");
                    c.sem.release();
                }
                case CONNECT_RESPONSE -> {
                    debug("CONNECT_RESPONSE\n");
                    c.wake(CONNECTED);
                }
                case ESTABLISHED -> {
                    debug("ESTABLISHED\n");
                    // the server wakes up when the first RECV completes
                    if (c.server == 0) {
                        c.state = CONNECTED;
                    }
                    c.sem.release();
                }
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                    err.print("cma event " + event.type().str() + ", error " + event.status() + "\n");
                    c.sem.release();
                    ret = -1;
                }
                case DISCONNECTED -> {
                    err.print((c.server == 1 ? "server" : "client") + " DISCONNECT EVENT...\n");
                    c.wake(DISCONNECTED);
                }
                case DEVICE_REMOVAL -> {
                    err.print("cma detected device removal!!!!\n");
                    c.wake(ERROR);
                    ret = -1;
                }
                default -> err.print("unhandled event: " + event.type().str() + ", ignoring\n");
            }
            if (ret != 0) {
                cmExit = ret & 0xff; // cm_thread: exit(ret)
            }
            return 0;
        }

        // -------------------------------------------------------------- setup

        /** {@code rping_setup_qp}: 0, or an errno / -1 after printing why. */
        int setupQp(RpingCb c, RdmaCmId cmId) {
            IbDevice dev = cmId.device();
            try {
                if (dev == null) {
                    throw new VerbsException(org.jrdma.ib.core.Errno.ENODEV, "the id has no device");
                }
                c.pd = dev.allocPd(owner);
            } catch (VerbsException e) {
                err.print("ibv_alloc_pd failed\n");
                return e.errno().value();
            }
            debug("created pd " + ptr(c.pd) + "\n");
            Semaphore channel = new Semaphore(0);
            c.channel = channel;
            debug("created channel " + ptr(channel) + "\n");
            try {
                c.cq = dev.createCq(owner, new CqInitAttr().cqe(SQ_DEPTH * 2).context(c)
                        .compHandler(cq -> channel.release()));
            } catch (VerbsException e) {
                err.print("ibv_create_cq failed\n");
                return e.errno().value();
            }
            debug("created cq " + ptr(c.cq) + "\n");
            try {
                c.cq.reqNotify(CqNotify.NEXT_COMP, false);
            } catch (VerbsException e) {
                err.print("ibv_create_cq failed\n");
                return e.errno().value();
            }
            QpInitAttr init = new QpInitAttr().qpType(QpType.RC).cq(c.cq)
                    .cap(new QpCap().maxSendWr(SQ_DEPTH).maxRecvWr(2).maxRecvSge(1).maxSendSge(1));
            try {
                c.qp = cmId.createQp(c.pd, init);
            } catch (VerbsException e) {
                perror("rdma_create_qp", e);
                return -1;
            }
            debug("created qp " + ptr(c.qp) + "\n");
            return 0;
        }

        /** {@code rping_setup_buffers}. */
        int setupBuffers(RpingCb c) {
            debug("rping_setup_buffers called on cb " + ptr(c) + "\n");
            c.recvBuf = ByteBuffer.allocateDirect(INFO_SIZE).order(ByteOrder.BIG_ENDIAN);
            try {
                c.recvMr = c.pd.regMr(c.recvBuf.duplicate(), Access.LOCAL_WRITE);
            } catch (VerbsException e) {
                err.print("recv_buf reg_mr failed\n");
                return e.errno().value();
            }
            c.sendBuf = ByteBuffer.allocateDirect(INFO_SIZE).order(ByteOrder.BIG_ENDIAN);
            try {
                c.sendMr = c.pd.regMr(c.sendBuf.duplicate(), 0);
            } catch (VerbsException e) {
                err.print("send_buf reg_mr failed\n");
                return e.errno().value();
            }
            int rdmaAccess = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            c.rdmaBuf = ByteBuffer.allocateDirect(c.size);
            try {
                c.rdmaMr = c.pd.regMr(c.rdmaBuf.duplicate(), rdmaAccess);
            } catch (VerbsException e) {
                err.print("rdma_buf reg_mr failed\n");
                return e.errno().value();
            }
            if (c.server == 0) {
                c.startBuf = ByteBuffer.allocateDirect(c.size);
                try {
                    c.startMr = c.pd.regMr(c.startBuf.duplicate(), rdmaAccess);
                } catch (VerbsException e) {
                    err.print("start_buf reg_mr failed\n");
                    return e.errno().value();
                }
            }
            debug("allocated & registered buffers...\n");
            return 0;
        }

        /** {@code rping_format_send}: {@code struct rping_rdma_info} in network byte order. */
        void formatSend(RpingCb c, MemoryRegion mr) {
            c.sendBuf.putLong(0, mr.iova());
            c.sendBuf.putInt(8, mr.rkey());
            c.sendBuf.putInt(12, c.size);
            debug("RDMA addr " + Long.toHexString(mr.iova()) + " rkey " + Integer.toHexString(mr.rkey()) + " len "
                    + c.size + "\n");
        }

        /** A send posted, or rping's "post send error" line: 0 or the negative errno. */
        int post(RpingCb c, SendWr wr) {
            int ret = c.postSend(wr);
            if (ret != 0) {
                err.print("post send error " + ret + "\n");
            }
            return ret;
        }

        /** {@code sem_wait(&cb->sem)} and the state check after it: false after rping's "wait for" line. */
        boolean awaitState(RpingCb c, int want, String name) {
            semWait(c.sem);
            if (c.state != want) {
                err.print("wait for " + name + " state " + c.state + "\n");
                return false;
            }
            return true;
        }

        void semWait(Semaphore s) {
            try {
                s.acquire();
            } catch (InterruptedException e) {
                throw interrupted();
            }
        }

        // -------------------------------------------------------------- server

        int bindServer(RpingCb c) {
            try {
                c.cmId.bindAddr(new InetSocketAddress(sin, port));
            } catch (VerbsException e) {
                perror("rdma_bind_addr", e);
                return -1;
            }
            debug("rdma_bind_addr successful\n");
            debug("rdma_listen\n");
            try {
                c.cmId.listen(3);
            } catch (VerbsException e) {
                perror("rdma_listen", e);
                return -1;
            }
            return 0;
        }

        int accept(RpingCb c) {
            debug("accepting client connection request\n");
            try {
                c.childCmId.accept(acceptParam(c.childCmId));
            } catch (VerbsException e) {
                perror("rdma_accept", e);
                return -1;
            }
            semWait(c.sem);
            if (c.state == ERROR) {
                err.print("wait for CONNECTED state " + c.state + "\n");
                return -1;
            }
            c.connected = true;
            return 0;
        }

        /**
         * What {@code rdma_accept(id, NULL)} sends: responder resources and initiator depth as the
         * request asked, within the device's limits; no flow control; retry and RNR retry 7.
         */
        static RdmaConnParam acceptParam(RdmaCmId child) {
            RdmaConnParam p = new RdmaConnParam().flowControl(0).retryCount(7).rnrRetryCount(7)
                    .responderResources(1).initiatorDepth(1);
            IbDevice dev = child.device();
            if (dev != null) {
                try {
                    DeviceAttr a = dev.queryDevice();
                    p.responderResources(Math.min(1, a.maxQpRdAtom())).initiatorDepth(Math.min(1, a.maxQpInitRdAtom()));
                } catch (VerbsException e) {
                    // keep 1/1
                }
            }
            return p;
        }

        /** {@code rping_test_server}. */
        int testServer(RpingCb c) {
            int ret;
            while (true) {
                // wait for the client's start STAG/TO/len
                if (!awaitState(c, RDMA_READ_ADV, "RDMA_READ_ADV")) {
                    ret = -1;
                    break;
                }
                debug("server received sink adv\n");

                ret = post(c, c.rdmaSqWr(WrOpcode.RDMA_READ, c.remoteLen));
                if (ret != 0) {
                    break;
                }
                debug("server posted rdma read req \n");

                if (!awaitState(c, RDMA_READ_COMPLETE, "RDMA_READ_COMPLETE")) {
                    ret = -1;
                    break;
                }
                debug("server received read complete\n");

                if (c.verbose != 0) {
                    printf("server ping data: " + RpingCb.cString(c.rdmaBuf) + "\n");
                }

                ret = post(c, c.sqWr());
                if (ret != 0) {
                    break;
                }
                debug("server posted go ahead\n");

                // wait for the client's RDMA STAG/TO/len
                if (!awaitState(c, RDMA_WRITE_ADV, "RDMA_WRITE_ADV")) {
                    ret = -1;
                    break;
                }
                debug("server received sink adv\n");

                int len = RpingCb.strlen(c.rdmaBuf) + 1;
                SendWr write = c.rdmaSqWr(WrOpcode.RDMA_WRITE, len);
                debug("rdma write from lkey " + Integer.toHexString(c.rdmaMr.lkey()) + " laddr "
                        + Long.toHexString(c.rdmaMr.iova()) + " len " + len + "\n");
                ret = post(c, write);
                if (ret != 0) {
                    break;
                }

                if (!awaitState(c, RDMA_WRITE_COMPLETE, "RDMA_WRITE_COMPLETE")) {
                    ret = -1;
                    break;
                }
                debug("server rdma write complete \n");

                ret = post(c, c.sqWr());
                if (ret != 0) {
                    break;
                }
                debug("server posted go ahead\n");
            }
            return c.state == DISCONNECTED ? 0 : ret;
        }

        /** {@code rping_run_server}. */
        int runServer(RpingCb c) {
            int ret = bindServer(c);
            if (ret != 0) {
                return ret;
            }
            if (!awaitState(c, CONNECT_REQUEST, "CONNECT_REQUEST")) {
                return -1;
            }
            return serveConnection(c, false);
        }

        /**
         * The part of {@code rping_run_server} (and of {@code rping_persistent_server_thread}) after the
         * connect request: the connection, then the child id is destroyed.
         */
        int serveConnection(RpingCb c, boolean persistent) {
            try {
                return runConnection(c, c.childCmId, persistent);
            } finally {
                RdmaCmId child = c.childCmId;
                c.childCmId = null;
                RpingCb.closeQuietly(child);
            }
        }

        /**
         * What {@code rping_run_server} and {@code rping_run_client} both do once the id is ready: setup,
         * accept or connect, the ping loop, disconnect. Releases everything of the connection.
         */
        int runConnection(RpingCb c, RdmaCmId id, boolean persistent) {
            String side = c.server == 1 ? "server" : "client";
            try {
                int ret = setupQp(c, id);
                if (ret != 0) {
                    err.print("setup_qp failed: " + ret + "\n");
                    return ret;
                }
                ret = setupBuffers(c);
                if (ret != 0) {
                    err.print("rping_setup_buffers failed: " + ret + "\n");
                    return ret;
                }
                try {
                    c.qp.postRecv(c.recvWr());
                } catch (VerbsException e) {
                    ret = -e.errno().value();
                    err.print("ibv_post_recv failed: " + ret + "\n");
                    return ret;
                }
                RpingCq.start(this, c);
                ret = c.server == 1 ? accept(c) : connectClient(c);
                if (ret != 0) {
                    err.print("connect error " + ret + "\n");
                    return ret;
                }
                ret = c.server == 1 ? testServer(c) : testClient(c);
                if (ret != 0 && !persistent) {
                    err.print("rping " + side + " failed: " + ret + "\n");
                }
                c.disconnect(id);
                RpingCq.join(c, 5000);
                return persistent ? 0 : ret;
            } finally {
                c.free();
            }
        }

        /** {@code rping_run_persistent_server}: runs until interrupted or a CM failure. */
        int runPersistentServer() {
            int ret = bindServer(cb);
            if (ret != 0) {
                return ret;
            }
            while (true) {
                if (!awaitState(cb, CONNECT_REQUEST, "CONNECT_REQUEST")) {
                    return -1;
                }
                RdmaCmId child = pendingRequests.poll();
                if (child == null) {
                    continue;
                }
                RpingCb conn = cb.cloneFor(child);
                Thread t = new Thread(() -> {
                    try {
                        serveConnection(conn, true);
                    } catch (Exit e) {
                        // interrupted: released by serveConnection
                    } finally {
                        serverThreads.remove(Thread.currentThread());
                    }
                }, "rping-server");
                t.setDaemon(true);
                serverThreads.add(t);
                t.start();
            }
        }

        // -------------------------------------------------------------- client

        /** {@code rping_test_client}. */
        int testClient(RpingCb c) {
            int ret = 0;
            int start = 65;
            byte[] line = new byte[c.size];
            for (int ping = 0; c.count == 0 || ping < c.count; ping++) {
                c.state = RDMA_READ_ADV;

                // put some ascii text in the buffer
                byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
                int cc = head.length;
                System.arraycopy(head, 0, line, 0, Math.min(cc, c.size - 1));
                if (cc >= c.size) {
                    line[c.size - 1] = 0; // snprintf truncates and terminates
                }
                int ch = start;
                for (int i = cc; i < c.size; i++) {
                    line[i] = (byte) ch;
                    ch++;
                    if (ch > 122) {
                        ch = 65;
                    }
                }
                start++;
                if (start > 122) {
                    start = 65;
                }
                line[c.size - 1] = 0;
                c.startBuf.put(0, line);

                formatSend(c, c.startMr);
                ret = post(c, c.sqWr());
                if (ret != 0) {
                    break;
                }

                // wait for the server to ACK
                if (!awaitState(c, RDMA_WRITE_ADV, "RDMA_WRITE_ADV")) {
                    ret = -1;
                    break;
                }

                formatSend(c, c.rdmaMr);
                ret = post(c, c.sqWr());
                if (ret != 0) {
                    break;
                }

                // wait for the server to say the RDMA WRITE is complete
                if (!awaitState(c, RDMA_WRITE_COMPLETE, "RDMA_WRITE_COMPLETE")) {
                    ret = -1;
                    break;
                }

                if (c.validate != 0 && !c.startBuf.duplicate().clear().equals(c.rdmaBuf.duplicate().clear())) {
                    err.print("data mismatch!\n");
                    ret = -1;
                    break;
                }

                if (c.verbose != 0) {
                    printf("ping data: " + RpingCb.cString(c.rdmaBuf) + "\n");
                }
            }
            return c.state == DISCONNECTED ? 0 : ret;
        }

        int connectClient(RpingCb c) {
            RdmaConnParam p = new RdmaConnParam().responderResources(1).initiatorDepth(1).retryCount(7)
                    .rnrRetryCount(7).flowControl(0);
            try {
                c.cmId.connect(p);
            } catch (VerbsException e) {
                perror("rdma_connect", e);
                return -1;
            }
            if (!awaitState(c, CONNECTED, "CONNECTED")) {
                return -1;
            }
            c.connected = true;
            debug("rdma_connect successful\n");
            return 0;
        }

        int bindClient(RpingCb c) {
            try {
                c.cmId.resolveAddr(ssource == null ? null : new InetSocketAddress(ssource, 0),
                        new InetSocketAddress(sin, port), 2000);
            } catch (VerbsException e) {
                perror("rdma_resolve_addr", e);
                return -1;
            }
            semWait(c.sem);
            if (c.state != ROUTE_RESOLVED) {
                err.print("waiting for addr/route resolution state " + c.state + "\n");
                return -1;
            }
            debug("rdma_resolve_addr - rdma_resolve_route successful\n");
            return 0;
        }

        /** {@code rping_run_client}. */
        int runClient(RpingCb c) {
            int ret = bindClient(c);
            if (ret != 0) {
                return ret;
            }
            return runConnection(c, c.cmId, false);
        }

        // -------------------------------------------------------------- teardown

        /** Whatever is left when {@code main} ends (an interrupt, a failure half-way). */
        void cleanup() {
            for (Thread t : serverThreads) {
                t.interrupt();
            }
            for (Thread t : serverThreads) {
                try {
                    t.join(10_000);
                } catch (InterruptedException e) {
                    break;
                }
            }
            cb.free();
            RdmaCmId child = cb.childCmId;
            cb.childCmId = null;
            RpingCb.closeQuietly(child);
            RdmaCmId r;
            while ((r = pendingRequests.poll()) != null) {
                RpingCb.closeQuietly(r);
            }
            RpingCb.closeQuietly(cb.cmId);
            cb.cmId = null;
        }
    }
}
