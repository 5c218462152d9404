package org.jrdma.ib.tools;

import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Exit.interrupted;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;

import org.jrdma.ib.core.AddressHandle;
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
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;

/**
 * {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong} and {@code ibv_ud_pingpong} of rdma-core 44
 * ({@code libibverbs/examples/{rc,uc,ud}_pingpong.c}): the same options and defaults, the same
 * handshake on TCP port 18515, the same output and error texts and exit statuses.
 * <p>The server (no host argument) listens, reads the client's address, moves its QP to RTR/RTS
 * (UD: and creates the AH), answers with its own address and waits for {@code "done"}; the client
 * connects, sends its address, reads the server's, sends {@code "done"}, then connects its QP and
 * sends first. Each side then pings and pongs {@code -n} messages of {@code -s} bytes.
 * <p>Options the verbs API has no means for behave as on a device without the feature:
 * {@code -o}/{@code -O} (ODP), {@code -t} (completion timestamps) and {@code -j} (device memory)
 * fail as the real tool does there. {@code -N} (the {@code ibv_wr_*} send API) sends the same
 * SEND work requests through {@code postSend}.
 */
final class Pingpong extends PingpongTool {

    enum Transport {
        RC("ibv_rc_pingpong", QpType.RC, "p:d:i:s:m:r:n:l:eg:oOPtcjN"),
        UC("ibv_uc_pingpong", QpType.UC, "p:d:i:s:m:r:n:l:eg:c"),
        UD("ibv_ud_pingpong", QpType.UD, "p:d:i:s:r:n:l:eg:c");

        final String prog;
        final QpType qpType;
        final String optstring;

        Transport(String prog, QpType qpType, String optstring) {
            this.prog = prog;
            this.qpType = qpType;
            this.optstring = optstring;
        }
    }

    /** The Q_Key of {@code ud_pingpong.c}. */
    static final int QKEY = 0x11111111;

    private final Transport t;

    Pingpong(Transport t) {
        super(t.prog);
        this.t = t;
    }

    private LongOption[] longOptions() {
        LongOption[] common = {
            new LongOption("port", Getopt.REQUIRED_ARGUMENT, 'p'),
            new LongOption("ib-dev", Getopt.REQUIRED_ARGUMENT, 'd'),
            new LongOption("ib-port", Getopt.REQUIRED_ARGUMENT, 'i'),
            new LongOption("size", Getopt.REQUIRED_ARGUMENT, 's'),
            new LongOption("mtu", Getopt.REQUIRED_ARGUMENT, 'm'),
            new LongOption("rx-depth", Getopt.REQUIRED_ARGUMENT, 'r'),
            new LongOption("iters", Getopt.REQUIRED_ARGUMENT, 'n'),
            new LongOption("sl", Getopt.REQUIRED_ARGUMENT, 'l'),
            new LongOption("events", Getopt.NO_ARGUMENT, 'e'),
            new LongOption("gid-idx", Getopt.REQUIRED_ARGUMENT, 'g'),
        };
        return switch (t) {
            case RC -> concat(common,
                    new LongOption("odp", Getopt.NO_ARGUMENT, 'o'),
                    new LongOption("iodp", Getopt.NO_ARGUMENT, 'O'),
                    new LongOption("prefetch", Getopt.NO_ARGUMENT, 'P'),
                    new LongOption("ts", Getopt.NO_ARGUMENT, 't'),
                    new LongOption("chk", Getopt.NO_ARGUMENT, 'c'),
                    new LongOption("dm", Getopt.NO_ARGUMENT, 'j'),
                    new LongOption("new_send", Getopt.NO_ARGUMENT, 'N'));
            case UC -> concat(common, new LongOption("chk", Getopt.NO_ARGUMENT, 'c'));
            case UD -> concat(withoutMtu(common), new LongOption("chk", Getopt.NO_ARGUMENT, 'c'));
        };
    }

    private static LongOption[] withoutMtu(LongOption[] o) {
        return java.util.Arrays.stream(o).filter(x -> x.val() != 'm').toArray(LongOption[]::new);
    }

    private static LongOption[] concat(LongOption[] a, LongOption... b) {
        LongOption[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Override
    void usage(PrintStream out) {
        usageHead(out, name());
        out.print("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
        out.print("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
        out.print("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
        if (t == Transport.UD) {
            // sic: the code's default is 1024
            out.print("  -s, --size=<size>      size of message to exchange (default 2048)\n");
            out.print("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
            out.print("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
            out.print("  -l, --sl=<SL>          send messages with service level <SL> (default 0)\n");
            out.print("  -e, --events           sleep on CQ events (default poll)\n");
            out.print("  -g, --gid-idx=<gid index> local port gid index\n");
            out.print("  -c, --chk              validate received buffer\n");
            out.flush();
            return;
        }
        out.print("  -s, --size=<size>      size of message to exchange (default 4096)\n");
        out.print("  -m, --mtu=<size>       path MTU (default 1024)\n");
        out.print("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
        out.print("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
        out.print("  -l, --sl=<sl>          service level value\n");
        out.print("  -e, --events           sleep on CQ events (default poll)\n");
        out.print("  -g, --gid-idx=<gid index> local port gid index\n");
        if (t == Transport.UC) {
            out.print("  -c, --chk              validate received buffer\n");
        } else {
            out.print("  -o, --odp\t\t    use on demand paging\n");
            out.print("  -O, --iodp\t\t    use implicit on demand paging\n");
            out.print("  -P, --prefetch\t    prefetch an ODP MR\n");
            out.print("  -t, --ts\t            get CQE with timestamp\n");
            out.print("  -c, --chk\t            validate received buffer\n");
            out.print("  -j, --dm\t            use device memory\n");
            out.print("  -N, --new_send            use new post send WR API\n");
        }
        out.flush();
    }

    // ------------------------------------------------------------------ one run

    /** {@code struct pingpong_context} plus main's locals: everything one run owns. */
    private final class Run extends PingpongRun {
        boolean useOdp;
        boolean implicitOdp;
        boolean prefetchMr;
        boolean useTs;
        boolean useDm;
        boolean useNewSend;
        QueuePair qp;
        AddressHandle ah;
        int pending;
        Dest remote;

        Run(PrintStream out, StringBuilder err) {
            super(Pingpong.this, out, err);
            size = t == Transport.UD ? 1024 : 4096;
        }

        int bufOffset() {
            return t == Transport.UD ? WcFlags.GRH_BYTES : 0; // the room a UD receive keeps for the GRH
        }

        @Override
        boolean option(int c, String optarg) {
            switch (c) {
                case 'p' -> {
                    return portOption(t == Transport.UD ? CNum.strtol(optarg) : CNum.strtoul(optarg));
                }
                case 's' -> size = CNum.strtoul(optarg) & 0xffffffffL;
                case 'o' -> useOdp = true;
                case 'P' -> prefetchMr = true;
                case 'O' -> {
                    useOdp = true;
                    implicitOdp = true;
                }
                case 't' -> useTs = true;
                case 'j' -> useDm = true;
                case 'N' -> useNewSend = true;
                default -> {
                    return false;
                }
            }
            return true;
        }

        // -------------------------------------------------------------- pp_init_ctx

        @Override
        void initCtx() {
            allocBuf(size + bufOffset(), FILL);
            if (t == Transport.UD) {
                PortAttr pa;
                try {
                    pa = dev.queryPort(ibPort);
                } catch (VerbsException e) {
                    err.append("Unable to query port info for port ").append(ibPort).append('\n');
                    throw exit(1);
                }
                int mtuBytes = pa.activeMtu().bytes();
                if (size > mtuBytes) {
                    err.append("Requested size larger than port MTU (").append(mtuBytes).append(")\n");
                    throw exit(1);
                }
            }
            allocPd();
            if (useOdp || useTs || useDm) {
                // ibv_query_device_ex: the verbs API has no ODP, completion timestamps or device memory
                if (useOdp) {
                    err.append("The device isn't ODP capable or does not support RC send and receive with ODP\n");
                    throw exit(1);
                }
                if (useTs) {
                    err.append("The device isn't completion timestamp capable\n");
                    throw exit(1);
                }
                err.append("Device doesn't support dm allocation\n");
                throw exit(1);
            }
            regMr();
            createCq(rxDepth + 1);
            try {
                qp = pd.createQp(new QpInitAttr().qpType(t.qpType).cq(cq)
                        .cap(new QpCap().maxSendWr(1).maxRecvWr((int) rxDepth).maxSendSge(1).maxRecvSge(1)));
            } catch (VerbsException e) {
                err.append("Couldn't create QP\n");
                throw exit(1);
            }
            if (Integer.toUnsignedLong(qp.cap().maxInlineData()) >= size && !useDm) {
                sendFlags |= SendFlags.INLINE;
            }
            try {
                QpAttr a = new QpAttr().state(QpState.INIT).pkeyIndex(0).port(ibPort);
                if (t == Transport.UD) {
                    a.qkey(QKEY);
                } else {
                    a.accessFlags(0);
                }
                qp.modify(a);
            } catch (VerbsException e) {
                err.append("Failed to modify QP to INIT\n");
                throw exit(1);
            }
            recvWr.sgList(new Sge(mr.iova(), (int) (size + bufOffset()), mr.lkey()));
            sendWr.sgList(new Sge(mr.iova() + bufOffset(), (int) size, mr.lkey())).sendFlags(sendFlags);
        }

        @Override
        int closeCtx(boolean report) {
            int status = releaseStep(err, 0, report, qp == null ? null : qp::destroy, "Couldn't destroy QP\n");
            qp = null;
            status = closeCqMr(status, report);
            status = releaseStep(err, status, report, ah == null ? null : ah::destroy, "Couldn't destroy AH\n");
            ah = null;
            return closePd(status, report);
        }

        // -------------------------------------------------------------- posting

        @Override
        void postOneRecv() {
            qp.postRecv(recvWr);
        }

        // -------------------------------------------------------------- pp_connect_ctx

        /** Returns false after printing why (the caller adds its own line on the server). */
        boolean connectCtx(int myPsn, Dest dest) {
            AhAttr av = new AhAttr().dlid(dest.lid() & 0xffff).sl(sl & 0xff).srcPathBits(0).portNum(ibPort);
            if (needsGrh(dest.gid())) {
                av.grh(new GlobalRoute().hopLimit(1).dgid(dest.gid()).sgidIndex(gidx & 0xff));
            }
            if (t == Transport.UD) {
                try {
                    qp.modify(new QpAttr().state(QpState.RTR));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP to RTR\n");
                    return false;
                }
                try {
                    qp.modify(new QpAttr().state(QpState.RTS).sqPsn(myPsn));
                } catch (VerbsException e) {
                    err.append("Failed to modify QP to RTS\n");
                    return false;
                }
                try {
                    ah = pd.createAh(av);
                } catch (VerbsException e) {
                    err.append("Failed to create AH\n");
                    return false;
                }
                sendWr.ud(ah, dest.qpn(), QKEY);
                return true;
            }
            try {
                if (mtu == null) {
                    // pp_mtu_to_enum returned -1 and the C code let it through: the kernel refuses it
                    throw new VerbsException(org.jrdma.ib.core.Errno.EINVAL, "invalid path MTU");
                }
                QpAttr rtr = new QpAttr().state(QpState.RTR).av(av).pathMtu(mtu).destQpNum(dest.qpn())
                        .rqPsn(dest.psn());
                if (t == Transport.RC) {
                    rtr.maxDestRdAtomic(1).minRnrTimer(12);
                }
                qp.modify(rtr);
            } catch (VerbsException e) {
                err.append("Failed to modify QP to RTR\n");
                return false;
            }
            try {
                QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(myPsn);
                if (t == Transport.RC) {
                    rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
                }
                qp.modify(rts);
            } catch (VerbsException e) {
                err.append("Failed to modify QP to RTS\n");
                return false;
            }
            return true;
        }

        // -------------------------------------------------------------- the TCP exchange

        Dest clientExchDest(String host, int port, Dest my) {
            SocketChannel sock = connectTo(host, port, err);
            if (sock == null) {
                return null;
            }
            try (SocketChannel s = sock) {
                try {
                    Tcp.write(s, my.toWire());
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    err.append("Couldn't send local address\n");
                    return null;
                }
                byte[] msg;
                IOException failure = null;
                try {
                    msg = Tcp.read(s, Dest.MSG_SIZE);
                    if (msg.length == Dest.MSG_SIZE) {
                        Tcp.write(s, Dest.DONE);
                    }
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    msg = new byte[0];
                    failure = e;
                }
                if (msg.length != Dest.MSG_SIZE || failure != null) {
                    err.append("client read/write: ").append(Tcp.strerror(failure)).append('\n');
                    err.append("Couldn't read/write remote address\n");
                    return null;
                }
                return Dest.fromWire(msg);
            } catch (IOException e) {
                return null; // close failed; nothing the real tool would notice
            }
        }

        Dest serverExchDest(int port, int myPsn, Dest my) {
            SocketChannel conn = acceptOn(port, err);
            if (conn == null) {
                return null;
            }
            try (SocketChannel c = conn) {
                byte[] msg;
                IOException failure = null;
                try {
                    msg = Tcp.read(c, Dest.MSG_SIZE);
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    msg = null;
                    failure = e;
                }
                if (msg == null || msg.length != Dest.MSG_SIZE) {
                    err.append("server read: ").append(Tcp.strerror(failure)).append('\n');
                    err.append(msg == null ? -1 : msg.length).append('/').append(Dest.MSG_SIZE)
                            .append(": Couldn't read remote address\n");
                    return null;
                }
                Dest rem = Dest.fromWire(msg);
                if (!connectCtx(myPsn, rem)) {
                    err.append("Couldn't connect to remote QP\n");
                    return null;
                }
                try {
                    Tcp.write(c, my.toWire());
                    if (Tcp.read(c, Dest.DONE.length).length != Dest.DONE.length) {
                        throw new IOException("short read");
                    }
                } catch (ClosedByInterruptException e) {
                    throw interrupted();
                } catch (IOException e) {
                    err.append("Couldn't send/recv local address\n");
                    return null;
                }
                return rem;
            } catch (IOException e) {
                return null;
            }
        }

        // -------------------------------------------------------------- completions

        @Override
        boolean handleWc(WorkCompletion wc, int ne) {
            if (parseSingleWc(wc)) {
                return true;
            }
            if (t == Transport.RC) {
                err.append("parse WC failed ").append(ne).append('\n');
            }
            return false;
        }

        /** {@code parse_single_wc}: the count, then the next send once both of the last ping's completions are in. */
        private boolean parseSingleWc(WorkCompletion wc) {
            if (!countWc(wc, 1)) {
                return false;
            }
            pending &= ~(int) wc.wrId();
            if (scnt < iters && pending == 0) {
                if (!postSend(qp)) {
                    err.append("Couldn't post send\n");
                    return false;
                }
                pending = RECV_WRID | SEND_WRID;
            }
            return true;
        }

        // -------------------------------------------------------------- main

        @Override
        int main(IbCore core) {
            if (t == Transport.RC) {
                if (useOdp && useDm) {
                    err.append("DM memory region can't be on demand\n");
                    return 1;
                }
                if (!useOdp && prefetchMr) {
                    err.append("prefetch is valid only with on-demand memory region\n");
                    return 1;
                }
            }
            PortAttr portinfo = start(core);
            if (portinfo == null) {
                return 1;
            }
            int lid = portinfo.lid();
            if (t != Transport.UD && portinfo.linkLayer() != LinkLayer.ETHERNET && lid == 0) {
                err.append("Couldn't get local LID\n");
                return 1;
            }
            Gid gid = localGid(t == Transport.UD ? "Could not get local gid for gid index "
                    : "can't read sgid of index ");
            if (gid == null) {
                return 1;
            }
            Dest my = new Dest(lid, qp.qpNum(), randomPsn(), gid);
            out.println("  local address:  " + my.lidQpnPsn() + (t == Transport.UD ? ": GID " : ", GID ")
                    + my.gidText());
            out.flush();

            remote = servername != null ? clientExchDest(servername, (int) port, my)
                    : serverExchDest((int) port, my.psn(), my);
            if (remote == null) {
                return 1;
            }
            out.println("  remote address: " + remote.lidQpnPsn() + ", GID " + remote.gidText());
            out.flush();

            if (servername != null && !connectCtx(my.psn(), remote)) {
                return 1;
            }
            pending = RECV_WRID;
            if (servername != null) {
                if (validateBuf) {
                    fillPattern(buf, bufOffset(), size);
                }
                if (!postSend(qp)) {
                    err.append("Couldn't post send\n");
                    return 1;
                }
                pending |= SEND_WRID;
            }

            return pingpong(new WorkCompletion[] {new WorkCompletion(), new WorkCompletion()}, bufOffset(), FILL);
        }
    }

    @Override
    PingpongRun newRun(PrintStream out, StringBuilder err) {
        return new Run(out, err);
    }

    @Override
    boolean parse(PingpongRun run, String[] args) {
        return run.parse(args, t.optstring, longOptions());
    }
}
