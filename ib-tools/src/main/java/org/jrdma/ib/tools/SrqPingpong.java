package org.jrdma.ib.tools;

import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Exit.interrupted;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.util.Locale;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.GlobalRoute;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;

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

    @Override
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

    private final class Run extends PingpongRun {
        long numQp = 16;
        boolean useOdp;
        SharedReceiveQueue srq;
        QueuePair[] qp;
        int[] pending;

        Run(PrintStream out, StringBuilder err) {
            super(SrqPingpong.this, out, err);
        }

        @Override
        boolean option(int c, String optarg) {
            switch (c) {
                case 'p' -> {
                    return portOption(CNum.strtoul(optarg));
                }
                case 's' -> {
                    size = CNum.strtoul(optarg) & 0xffffffffL;
                    return size >= 1;
                }
                case 'q' -> numQp = CNum.strtoul(optarg) & 0xffffffffL;
                case 'o' -> useOdp = true;
                default -> {
                    return false;
                }
            }
            return true;
        }

        @Override
        void initCtx() {
            allocBuf(size, (byte) 0); // zeroed, as the C memset(ctx->buf, 0, size)
            if (useOdp) {
                err.append("The device isn't ODP capable or does not support RC send, receive and srq with ODP\n");
                throw exit(1);
            }
            allocPd();
            regMr();
            createCq(rxDepth + numQp);
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

        @Override
        int closeCtx(boolean report) {
            int status = 0;
            for (int i = 0; qp != null && i < qp.length; ++i) {
                QueuePair q = qp[i];
                status = releaseStep(err, status, report, q == null ? null : q::destroy, "Couldn't destroy QP[" + i + "]\n");
                qp[i] = null;
            }
            status = releaseStep(err, status, report, srq == null ? null : srq::destroy, "Couldn't destroy SRQ\n");
            srq = null;
            status = closeCqMr(status, report);
            return closePd(status, report);
        }

        @Override
        void postOneRecv() {
            srq.postRecv(recvWr);
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

        int findQp(int qpn) {
            for (int i = 0; i < numQp; ++i) {
                if (qp[i].qpNum() == qpn) {
                    return i;
                }
            }
            return -1;
        }

        @Override
        int main(IbCore core) {
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
            PortAttr portinfo = start(core);
            if (portinfo == null) {
                return 1;
            }
            Dest[] my = new Dest[MAX_QP];
            java.util.Arrays.fill(my, new Dest(0, 0, 0, Gid.ZERO));
            for (int i = 0; i < numQp; ++i) {
                int lid = portinfo.lid();
                if (portinfo.linkLayer() != LinkLayer.ETHERNET && lid == 0) {
                    err.append("Couldn't get local LID\n");
                    return 1;
                }
                Gid gid = localGid("Could not get local gid for gid index ");
                if (gid == null) {
                    return 1;
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
                    if (!postSend(qp[i])) {
                        err.append("Couldn't post send\n");
                        return 1;
                    }
                    pending[i] = SEND_WRID | RECV_WRID;
                }
            } else {
                java.util.Arrays.fill(pending, RECV_WRID);
            }

            WorkCompletion[] wc = new WorkCompletion[numWc];
            for (int i = 0; i < numWc; i++) {
                wc[i] = new WorkCompletion();
            }
            return pingpong(wc, 0, (byte) 0);
        }

        @Override
        boolean handleWc(WorkCompletion w, int ne) {
            int qpInd = findQp(w.qpNum());
            if (w.status() == WcStatus.SUCCESS && qpInd < 0) {
                err.append(String.format(Locale.ROOT, "Couldn't find QPN %06x\n", w.qpNum()));
                return false;
            }
            if (!countWc(w, numQp)) {
                return false;
            }
            pending[qpInd] &= ~(int) w.wrId();
            if (Integer.toUnsignedLong(scnt) < iters && pending[qpInd] == 0) {
                if (!postSend(qp[qpInd])) {
                    err.append("Couldn't post send\n");
                    return false;
                }
                pending[qpInd] = RECV_WRID | SEND_WRID;
            }
            return true;
        }
    }

    @Override
    PingpongRun newRun(PrintStream out, StringBuilder err) {
        return new Run(out, err);
    }

    @Override
    boolean parse(PingpongRun run, String[] args) {
        return run.parse(args, "p:d:i:s:m:q:r:n:l:eog:c", LONG_OPTIONS);
    }
}
