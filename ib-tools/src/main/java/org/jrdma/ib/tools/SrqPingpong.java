package org.jrdma.ib.tools;

import static org.jrdma.ib.core.cli.Exit.checkInterrupt;
import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Exit.interrupted;
import static org.jrdma.ib.core.cli.Polling.idle;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.concurrent.Semaphore;

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
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.jrdma.ib.core.cli.ToolClient;

/**
 * {@code ibv_srq_pingpong} of rdma-core 44 ({@code libibverbs/examples/srq_pingpong.c}): {@code -q}
 * RC QPs (default 16) whose receives all come from one SRQ. The handshake always carries
 * {@value #MAX_QP} address messages each way (the unused ones all zero), then {@code "done"}; the
 * {@code -n} exchanges are counted over all QPs together, as in the real tool.
 */
final class SrqPingpong extends PingpongTool {
    static final int MAX_QP = 256;

    private static final LongOption[] LONG_OPTIONS = {
        new LongOption("port", Getopt.REQUIRED_ARGUMENT, 'p'),
        new LongOption("ib-dev", Getopt.REQUIRED_ARGUMENT, 'd'),
        new LongOption("ib-port", Getopt.REQUIRED_ARGUMENT, 'i'),
        new LongOption("size", Getopt.REQUIRED_ARGUMENT, 's'),
        new LongOption("mtu", Getopt.REQUIRED_ARGUMENT, 'm'),
        new LongOption("num-qp", Getopt.REQUIRED_ARGUMENT, 'q'),
        new LongOption("rx-depth", Getopt.REQUIRED_ARGUMENT, 'r'),
        new LongOption("iters", Getopt.REQUIRED_ARGUMENT, 'n'),
        new LongOption("sl", Getopt.REQUIRED_ARGUMENT, 'l'),
        new LongOption("events", Getopt.NO_ARGUMENT, 'e'),
        new LongOption("odp", Getopt.NO_ARGUMENT, 'o'),
        new LongOption("gid-idx", Getopt.REQUIRED_ARGUMENT, 'g'),
        new LongOption("chk", Getopt.NO_ARGUMENT, 'c'),
    };

    SrqPingpong() {
        super("ibv_srq_pingpong");
    }

    void usage(PrintStream out) {
        usageHead(out, name());
        out.print("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
        out.print("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
        out.print("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
        out.print("  -s, --size=<size>      size of message to exchange (default 4096)\n");
        out.print("  -m, --mtu=<size>       path MTU (default 1024)\n");
        out.print("  -q, --num-qp=<num>     number of QPs to use (default 16)\n");
        out.print("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
        out.print("  -n, --iters=<iters>    number of exchanges per QP(default 1000)\n");
        out.print("  -l, --sl=<sl>          service level value\n");
        out.print("  -e, --events           sleep on CQ events (default poll)\n");
        out.print("  -g, --gid-idx=<gid index> local port gid index\n");
        out.print("  -o, --odp\t\t    use on demand paging\n");
        out.print("  -c, --chk              validate received buffer\n");
        out.flush();
    }

    private final class Run {
        final PrintStream out;
        final StringBuilder err;
        String ibDevname;
        String servername;
        long port = 18515;
        int ibPort = 1;
        long size = 4096;
        Mtu mtu = Mtu.MTU_1024;
        long numQp = 16;
        long rxDepth = 500;
        long iters = 1000;
        boolean useEvent;
        int sl;
        int gidx = -1;
        boolean useOdp;
        boolean validateBuf;

        IbClient owner;
        IbDevice dev;
        ByteBuffer buf;
        Semaphore channel;
        ProtectionDomain pd;
        MemoryRegion mr;
        CompletionQueue cq;
        SharedReceiveQueue srq;
        QueuePair[] qp;
        int sendFlags = SendFlags.SIGNALED;
        int[] pending;
        int routs;
        final RecvWr recvWr = new RecvWr().wrId(RECV_WRID);
        final SendWr sendWr = new SendWr().wrId(SEND_WRID);

        Run(PrintStream out, StringBuilder err) {
            this.out = out;
            this.err = err;
        }

        boolean parse(String[] args) {
            Getopt g = new Getopt(name(), args, "p:d:i:s:m:q:r:n:l:eog:c", LONG_OPTIONS, err);
            for (int c; (c = g.next()) != -1; ) {
                switch (c) {
                    case 'p' -> {
                        port = CNum.strtoul(g.optarg) & 0xffffffffL;
                        if (port > 65535) {
                            return false;
                        }
                    }
                    case 'd' -> ibDevname = g.optarg;
                    case 'i' -> {
                        ibPort = (int) CNum.strtol(g.optarg);
                        if (ibPort < 1) {
                            return false;
                        }
                    }
                    case 's' -> {
                        size = CNum.strtoul(g.optarg) & 0xffffffffL;
                        if (size < 1) {
                            return false;
                        }
                    }
                    case 'm' -> mtu = mtuOf(CNum.strtol(g.optarg));
                    case 'q' -> numQp = CNum.strtoul(g.optarg) & 0xffffffffL;
                    case 'r' -> rxDepth = CNum.strtoul(g.optarg) & 0xffffffffL;
                    case 'n' -> iters = CNum.strtoul(g.optarg) & 0xffffffffL;
                    case 'l' -> sl = (int) CNum.strtol(g.optarg);
                    case 'e' -> useEvent = true;
                    case 'g' -> gidx = (int) CNum.strtol(g.optarg);
                    case 'o' -> useOdp = true;
                    case 'c' -> validateBuf = true;
                    default -> {
                        return false;
                    }
                }
            }
            if (g.operands().size() == 1) {
                servername = g.operands().get(0);
            } else if (g.operands().size() > 1) {
                return false;
            }
            return true;
        }

        void initCtx() {
            owner = ToolClient.named(name());
            if (size > Integer.MAX_VALUE - 8) {
                err.append("Couldn't allocate work buf.\n");
                throw exit(1);
            }
            try {
                buf = ByteBuffer.allocateDirect((int) size); // zeroed, as the C memset(ctx->buf, 0, size)
            } catch (OutOfMemoryError e) {
                err.append("Couldn't allocate work buf.\n");
                throw exit(1);
            }
            if (useOdp) {
                err.append("The device isn't ODP capable or does not support RC send, receive and srq with ODP\n");
                throw exit(1);
            }
            if (useEvent) {
                channel = new Semaphore(0);
            }
            try {
                pd = dev.allocPd(owner);
            } catch (VerbsException e) {
                err.append("Couldn't allocate PD\n");
                throw exit(1);
            }
            try {
                mr = pd.regMr(buf.duplicate().clear(), Access.LOCAL_WRITE);
            } catch (VerbsException e) {
                err.append("Couldn't register MR\n");
                throw exit(1);
            }
            try {
                CqInitAttr ca = new CqInitAttr().cqe((int) (rxDepth + numQp));
                if (channel != null) {
                    Semaphore ch = channel;
                    ca.compHandler(c -> ch.release());
                }
                cq = dev.createCq(owner, ca);
            } catch (VerbsException e) {
                err.append("Couldn't create CQ\n");
                throw exit(1);
            }
            try {
                srq = pd.createSrq(new SrqInitAttr().attr(new SrqAttr().maxWr((int) rxDepth).maxSge(1)));
            } catch (VerbsException e) {
                err.append("Couldn't create SRQ\n");
                throw exit(1);
            }
            qp = new QueuePair[(int) numQp];
            for (int i = 0; i < numQp; ++i) {
                try {
                    qp[i] = pd.createQp(new QpInitAttr().qpType(QpType.RC).cq(cq).srq(srq)
                            .cap(new QpCap().maxSendWr(1).maxSendSge(1).maxRecvWr(0).maxRecvSge(0)));
                } catch (VerbsException e) {
                    err.append("Couldn't create QP[").append(i).append("]\n");
                    throw exit(1);
                }
                if (Integer.toUnsignedLong(qp[i].cap().maxInlineData()) >= size) {
                    sendFlags |= SendFlags.INLINE;
                }
            }
            for (int i = 0; i < numQp; ++i) {
                try {
                    qp[i].modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(ibPort).accessFlags(0));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP[").append(i).append("] to INIT\n");
                    throw exit(1);
                }
            }
            recvWr.sgList(new Sge(mr.iova(), (int) size, mr.lkey()));
            sendWr.sgList(new Sge(mr.iova(), (int) size, mr.lkey())).sendFlags(sendFlags);
        }

        int closeCtx(boolean report) {
            int status = 0;
            if (qp != null) {
                for (int i = 0; i < qp.length; ++i) {
                    if (qp[i] == null) {
                        continue;
                    }
                    try {
                        qp[i].destroy();
                    } catch (RuntimeException e) {
                        if (report && status == 0) {
                            err.append("Couldn't destroy QP[").append(i).append("]\n");
                            status = 1;
                        }
                    }
                    qp[i] = null;
                }
            }
            status = step(status, report, srq == null ? null : srq::destroy, "Couldn't destroy SRQ\n");
            srq = null;
            status = step(status, report, cq == null ? null : cq::destroy, "Couldn't destroy CQ\n");
            cq = null;
            status = step(status, report, mr == null ? null : mr::dereg, "Couldn't deregister MR\n");
            mr = null;
            status = step(status, report, pd == null ? null : pd::dealloc, "Couldn't deallocate PD\n");
            pd = null;
            return status;
        }

        private int step(int status, boolean report, Runnable destroy, String message) {
            return releaseStep(err, status, report, destroy, message);
        }

        int postRecv(long n) {
            int i = 0;
            try {
                for (; i < n; ++i) {
                    srq.postRecv(recvWr);
                }
            } catch (VerbsException e) {
                // stop at the first failure
            }
            return i;
        }

        boolean postSend(int qpIndex) {
            try {
                qp[qpIndex].postSend(sendWr);
                return true;
            } catch (VerbsException e) {
                return false;
            }
        }

        boolean connectCtx(Dest[] my, Dest[] dest) {
            for (int i = 0; i < numQp; ++i) {
                AhAttr av = new AhAttr().dlid(dest[i].lid() & 0xffff).sl(sl & 0xff).srcPathBits(0).portNum(ibPort);
                // sic: the GRH of every QP is taken from the first address (dest->gid)
                if (needsGrh(dest[0].gid())) {
                    av.grh(new GlobalRoute().hopLimit(1).dgid(dest[0].gid()).sgidIndex(gidx & 0xff));
                }
                try {
                    if (mtu == null) {
                        throw new VerbsException(org.jrdma.ib.core.Errno.EINVAL, "invalid path MTU");
                    }
                    qp[i].modify(new QpAttr().state(QpState.RTR).av(av).pathMtu(mtu).destQpNum(dest[i].qpn())
                            .rqPsn(dest[i].psn()).maxDestRdAtomic(1).minRnrTimer(12));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP[").append(i).append("] to RTR\n");
                    return false;
                }
                try {
                    qp[i].modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7)
                            .sqPsn(my[i].psn()).maxRdAtomic(1));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP[").append(i).append("] to RTS\n");
                    return false;
                }
            }
            return true;
        }

        /** Reads the {@value #MAX_QP} messages; null after printing why. */
        private Dest[] readDests(SocketChannel s, String who) throws ClosedByInterruptException {
            Dest[] rem = new Dest[MAX_QP];
            for (int i = 0; i < MAX_QP; ++i) {
                byte[] msg;
                IOException failure = null;
                try {
                    msg = Tcp.read(s, Dest.MSG_SIZE);
                } catch (ClosedByInterruptException e) {
                    throw e;
                } catch (IOException e) {
                    msg = new byte[0];
                    failure = e;
                }
                if (msg.length != Dest.MSG_SIZE) {
                    // the C loop would spin forever on EOF; report it like a failed read instead
                    err.append(who).append(": ").append(Tcp.strerror(failure)).append('\n');
                    err.append(msg.length).append('/').append(Dest.MSG_SIZE)
                            .append(": Couldn't read remote address [").append(i).append("]\n");
                    return null;
                }
                rem[i] = Dest.fromWire(msg);
            }
            return rem;
        }

        private void writeDests(SocketChannel s, Dest[] my) throws IOException {
            for (int i = 0; i < MAX_QP; ++i) {
                Tcp.write(s, my[i].toWire());
            }
        }

        Dest[] clientExchDest(String host, int port, Dest[] my) {
            SocketChannel sock = connectTo(host, port, err);
            if (sock == null) {
                return null;
            }
            try (SocketChannel s = sock) {
                try {
                    writeDests(s, my);
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    err.append("Couldn't send local address\n");
                    return null;
                }
                Dest[] rem;
                try {
                    rem = readDests(s, "client read");
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                }
                if (rem == null) {
                    return null;
                }
                try {
                    Tcp.write(s, Dest.DONE);
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    err.append("client write: ").append(Tcp.strerror(e)).append('\n'); // and goes on, as the C code
                }
                return rem;
            } catch (IOException e) {
                return null;
            }
        }

        Dest[] serverExchDest(int port, Dest[] my) {
            SocketChannel conn = acceptOn(port, err);
            if (conn == null) {
                return null;
            }
            try (SocketChannel c = conn) {
                Dest[] rem = readDests(c, "server read");
                if (rem == null) {
                    return null;
                }
                if (!connectCtx(my, rem)) {
                    err.append("Couldn't connect to remote QP\n");
                    return null;
                }
                try {
                    writeDests(c, my);
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    err.append("Couldn't send local address\n");
                    return null;
                }
                IOException failure = null;
                int n;
                try {
                    n = Tcp.read(c, Dest.DONE.length).length;
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    n = -1;
                    failure = e;
                }
                if (n != Dest.DONE.length) {
                    err.append("client write: ").append(Tcp.strerror(failure)).append('\n'); // sic
                    return null;
                }
                return rem;
            } catch (ClosedByInterruptException e) {
                throw interrupted();
            } catch (IOException e) {
                return null;
            }
        }

        void getCqEvent() {
            awaitCqEvent(channel, cq, err);
        }

        void reqNotify() {
            armCq(cq, err);
        }

        int findQp(int qpn) {
            for (int i = 0; i < numQp; ++i) {
                if (qp[i].qpNum() == qpn) {
                    return i;
                }
            }
            return -1;
        }

        int main(IbCore core, String[] args) {
            if (!parse(args)) {
                usage(out);
                return 1;
            }
            if (numQp > rxDepth) {
                err.append("rx_depth ").append((int) rxDepth).append(" is too small for ").append((int) numQp)
                        .append(" QPs -- must have at least one receive per QP.\n");
                return 1;
            }
            if (numQp >= MAX_QP) {
                err.append("num_qp ").append((int) numQp).append(" must be less than ").append(MAX_QP - 1).append('\n');
                return 1;
            }
            int numWc = (int) (numQp + rxDepth);
            dev = ToolClient.findDevice(core, ibDevname, err);
            if (dev == null) {
                return 1;
            }
            initCtx();

            routs = postRecv(rxDepth);
            if (routs < rxDepth) {
                err.append("Couldn't post receive (").append(routs).append(")\n");
                return 1;
            }
            if (useEvent) {
                reqNotify();
            }
            Dest[] my = new Dest[MAX_QP];
            java.util.Arrays.fill(my, new Dest(0, 0, 0, Gid.ZERO));
            PortAttr portinfo;
            try {
                portinfo = dev.queryPort(ibPort);
            } catch (VerbsException e) {
                err.append("Couldn't get port info\n");
                return 1;
            }
            for (int i = 0; i < numQp; ++i) {
                int lid = portinfo.lid();
                if (portinfo.linkLayer() != LinkLayer.ETHERNET && lid == 0) {
                    err.append("Couldn't get local LID\n");
                    return 1;
                }
                Gid gid = Gid.ZERO;
                if (gidx >= 0) {
                    try {
                        gid = dev.queryGid(ibPort, gidx);
                    } catch (VerbsException e) {
                        err.append("Could not get local gid for gid index ").append(gidx).append('\n');
                        return 1;
                    }
                }
                my[i] = new Dest(lid, qp[i].qpNum(), randomPsn(), gid);
                out.println("  local address:  " + my[i].lidQpnPsn() + ", GID " + my[i].gidText());
            }
            out.flush();

            Dest[] rem = servername != null ? clientExchDest(servername, (int) port, my)
                    : serverExchDest((int) port, my);
            if (rem == null) {
                return 1;
            }
            for (int i = 0; i < numQp; ++i) {
                out.println("  remote address: " + rem[i].lidQpnPsn() + ", GID " + rem[i].gidText());
            }
            out.flush();
            if (servername != null && !connectCtx(my, rem)) {
                return 1;
            }
            pending = new int[(int) numQp];
            if (servername != null) {
                if (validateBuf) {
                    fillPattern(buf, 0, size);
                }
                for (int i = 0; i < numQp; ++i) {
                    if (!postSend(i)) {
                        err.append("Couldn't post send\n");
                        return 1;
                    }
                    pending[i] = SEND_WRID | RECV_WRID;
                }
            } else {
                java.util.Arrays.fill(pending, RECV_WRID);
            }

            long start = System.nanoTime();
            int rcnt = 0;
            int scnt = 0;
            WorkCompletion[] wc = new WorkCompletion[numWc];
            for (int i = 0; i < numWc; i++) {
                wc[i] = new WorkCompletion();
            }
            while (Integer.toUnsignedLong(rcnt) < iters || Integer.toUnsignedLong(scnt) < iters) {
                if (useEvent) {
                    getCqEvent();
                    reqNotify();
                }
                int ne;
                int empty = 0;
                do {
                    try {
                        ne = cq.poll(wc, numWc);
                    } catch (VerbsException e) {
                        err.append("poll CQ failed ").append(-e.errno().value()).append('\n');
                        return 1;
                    }
                    if (ne < 1) {
                        idle(++empty);
                    }
                } while (!useEvent && ne < 1);
                for (int i = 0; i < ne; ++i) {
                    WorkCompletion w = wc[i];
                    if (w.status() != WcStatus.SUCCESS) {
                        err.append("Failed status ").append(wcStatusStr(w.status())).append(" (")
                                .append(w.status().ordinal()).append(") for wr_id ").append((int) w.wrId()).append('\n');
                        return 1;
                    }
                    int qpInd = findQp(w.qpNum());
                    if (qpInd < 0) {
                        err.append(String.format(Locale.ROOT, "Couldn't find QPN %06x\n", w.qpNum()));
                        return 1;
                    }
                    switch ((int) w.wrId()) {
                        case SEND_WRID -> ++scnt;
                        case RECV_WRID -> {
                            if (--routs <= numQp) {
                                routs += postRecv(rxDepth - routs);
                                if (routs < rxDepth) {
                                    err.append("Couldn't post receive (").append(routs).append(")\n");
                                    return 1;
                                }
                            }
                            ++rcnt;
                        }
                        default -> {
                            err.append("Completion for unknown wr_id ").append((int) w.wrId()).append('\n');
                            return 1;
                        }
                    }
                    pending[qpInd] &= ~(int) w.wrId();
                    if (Integer.toUnsignedLong(scnt) < iters && pending[qpInd] == 0) {
                        if (!postSend(qpInd)) {
                            err.append("Couldn't post send\n");
                            return 1;
                        }
                        pending[qpInd] = RECV_WRID | SEND_WRID;
                    }
                }
                checkInterrupt();
            }
            long micros = (System.nanoTime() - start) / 1000;
            printResults(out, micros, size, iters);
            int status = 0;
            if (servername == null && validateBuf && validate(out, buf, 0, size, (byte) 0) > 0) {
                status = 1;
            }
            int closed = closeCtx(true);
            return status != 0 ? status : closed;
        }
    }

    @Override
    int main(IbCore core, PrintStream out, StringBuilder stderr, String[] args) {
        Run r = new Run(out, stderr);
        try {
            return r.main(core, args);
        } catch (Exit e) {
            return e.status();
        } finally {
            boolean interrupted = Thread.interrupted();
            r.closeCtx(false);
            out.flush();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
