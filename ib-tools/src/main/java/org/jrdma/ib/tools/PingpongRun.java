package org.jrdma.ib.tools;

import static org.jrdma.ib.core.cli.Exit.checkInterrupt;
import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Polling.idle;
import static org.jrdma.ib.tools.PingpongTool.RECV_WRID;
import static org.jrdma.ib.tools.PingpongTool.SEND_WRID;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.cli.CNum;
import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ib.core.cli.Getopt.LongOption;
import org.jrdma.ib.core.cli.ToolClient;

/**
 * What every pingpong tool's {@code main} has in common ({@code struct pingpong_context} and the
 * locals of {@code main} that all four C files share): the common options, the PD, MR, CQ and
 * completion channel, the start of {@code main} up to the port query, the polling loop and the end
 * of the run. A tool adds its QPs (and SRQ or AH), its handshake and what one completion does.
 */
abstract class PingpongRun {
    final PingpongTool tool;
    final PrintStream out;
    final StringBuilder err;
    // options
    String ibDevname;
    String servername;
    long port = 18515;
    int ibPort = 1;
    long size = 4096;
    Mtu mtu = Mtu.MTU_1024;
    long rxDepth = 500;
    long iters = 1000;
    boolean useEvent;
    int sl;
    int gidx = -1;
    boolean validateBuf;
    // context
    IbClient owner;
    IbDevice dev;
    ByteBuffer buf;
    Semaphore channel;
    ProtectionDomain pd;
    MemoryRegion mr;
    CompletionQueue cq;
    int sendFlags = SendFlags.SIGNALED;
    int routs;
    int rcnt;
    int scnt;
    final RecvWr recvWr = new RecvWr().wrId(RECV_WRID);
    final SendWr sendWr = new SendWr().wrId(SEND_WRID);

    PingpongRun(PingpongTool tool, PrintStream out, StringBuilder err) {
        this.tool = tool;
        this.out = out;
        this.err = err;
    }

    /** The tool's {@code main} once its options are parsed: returns the exit status, or throws {@link org.jrdma.ib.core.cli.Exit}. */
    abstract int main(IbCore core);

    /** An option only this tool has (or parses its own way); false for a bad value or an unknown option. */
    abstract boolean option(int c, String optarg);

    /** {@code pp_close_ctx}: with {@code report}, the real tool's messages and status; always releases everything. */
    abstract int closeCtx(boolean report);

    /** {@code ibv_post_recv} (or {@code ibv_post_srq_recv}) of {@link #recvWr}. */
    abstract void postOneRecv();

    /** One completion of the main loop; false after printing why. */
    abstract boolean handleWc(WorkCompletion wc, int ne);

    // ------------------------------------------------------------------ options

    /** The getopt loop; returns false when the usage is to be printed (exit 1). */
    final boolean parse(String[] args, String optstring, LongOption[] longopts) {
        Getopt g = new Getopt(tool.name(), args, optstring, longopts, err);
        for (int c; (c = g.next()) != -1; ) {
            switch (c) {
                case 'd' -> ibDevname = g.optarg;
                case 'i' -> {
                    ibPort = (int) CNum.strtol(g.optarg);
                    if (ibPort < 1) {
                        return false;
                    }
                }
                case 'm' -> mtu = PingpongTool.mtuOf(CNum.strtol(g.optarg)); // an invalid MTU fails at RTR, as in C
                case 'r' -> rxDepth = CNum.strtoul(g.optarg) & 0xffffffffL;
                case 'n' -> iters = CNum.strtoul(g.optarg) & 0xffffffffL;
                case 'l' -> sl = (int) CNum.strtol(g.optarg);
                case 'e' -> useEvent = true;
                case 'g' -> gidx = (int) CNum.strtol(g.optarg);
                case 'c' -> validateBuf = true;
                default -> {
                    if (!option(c, g.optarg)) {
                        return false;
                    }
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

    /** {@code -p}: false when the port is out of range. */
    final boolean portOption(long value) {
        port = value & 0xffffffffL;
        return port <= 65535;
    }

    // ------------------------------------------------------------------ pp_init_ctx

    /** The work buffer: {@code len} bytes of {@code fill}. */
    final void allocBuf(long len, byte fill) {
        if (len > Integer.MAX_VALUE - 8) {
            err.append("Couldn't allocate work buf.\n");
            throw exit(1);
        }
        try {
            buf = ByteBuffer.allocateDirect((int) len);
        } catch (OutOfMemoryError e) {
            err.append("Couldn't allocate work buf.\n");
            throw exit(1);
        }
        for (int i = 0; fill != 0 && i < buf.capacity(); i++) {
            buf.put(i, fill);
        }
    }

    /** {@code ibv_create_comp_channel} (with {@code -e}) and {@code ibv_alloc_pd}. */
    final void allocPd() {
        if (useEvent) {
            channel = new Semaphore(0);
        }
        try {
            pd = dev.allocPd(owner);
        } catch (VerbsException e) {
            err.append("Couldn't allocate PD\n");
            throw exit(1);
        }
    }

    final void regMr() {
        try {
            mr = pd.regMr(buf.duplicate().clear(), Access.LOCAL_WRITE);
        } catch (VerbsException e) {
            err.append("Couldn't register MR\n");
            throw exit(1);
        }
    }

    /** {@code ibv_create_cq} on the completion channel, if there is one (one event per armed completion). */
    final void createCq(long cqe) {
        try {
            CqInitAttr ca = new CqInitAttr().cqe((int) cqe);
            if (channel != null) {
                Semaphore ch = channel;
                ca.compHandler(c -> ch.release());
            }
            cq = dev.createCq(owner, ca);
        } catch (VerbsException e) {
            err.append("Couldn't create CQ\n");
            throw exit(1);
        }
    }

    /** The CQ, MR and PD steps of {@code pp_close_ctx}, in its order. */
    final int closeCqMr(int status, boolean report) {
        status = PingpongTool.releaseStep(err, status, report, cq == null ? null : cq::destroy, "Couldn't destroy CQ\n");
        cq = null;
        status = PingpongTool.releaseStep(err, status, report, mr == null ? null : mr::dereg, "Couldn't deregister MR\n");
        mr = null;
        return status;
    }

    final int closePd(int status, boolean report) {
        status = PingpongTool.releaseStep(err, status, report, pd == null ? null : pd::dealloc, "Couldn't deallocate PD\n");
        pd = null;
        return status;
    }

    // ------------------------------------------------------------------ posting

    /** Posts up to {@code n} receives; how many were posted (as the C loop, it stops at the first failure). */
    final int postRecv(long n) {
        int i = 0;
        try {
            for (; i < n; ++i) {
                postOneRecv();
            }
        } catch (VerbsException e) {
            // stop at the first failure
        }
        return i;
    }

    /** {@code ibv_post_send} of {@link #sendWr} on {@code qp}; false when it failed. */
    final boolean postSend(QueuePair qp) {
        try {
            qp.postSend(sendWr);
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ main

    /**
     * The start of every {@code main}: options, device, context, the first receives, the CQ armed
     * with {@code -e}, the port queried; null after the real tool's message (exit 1).
     */
    final PortAttr start(IbCore core) {
        dev = ToolClient.findDevice(core, ibDevname, err);
        if (dev == null) {
            return null;
        }
        owner = ToolClient.named(tool.name());
        initCtx();
        routs = postRecv(rxDepth);
        if (routs < rxDepth) {
            err.append("Couldn't post receive (").append(routs).append(")\n");
            return null;
        }
        if (useEvent) {
            PingpongTool.armCq(cq, err);
        }
        try {
            return dev.queryPort(ibPort);
        } catch (VerbsException e) {
            err.append("Couldn't get port info\n");
            return null;
        }
    }

    /** {@code pp_init_ctx}. */
    abstract void initCtx();

    /** The local GID of {@code -g} (0 without it); null after {@code message} and the index. */
    final Gid localGid(String message) {
        if (gidx < 0) {
            return Gid.ZERO;
        }
        try {
            return dev.queryGid(ibPort, gidx);
        } catch (VerbsException e) {
            err.append(message).append(gidx).append('\n');
            return null;
        }
    }

    /**
     * The ping-pong: polls (or sleeps on CQ events with {@code -e}) until {@code -n} receives and
     * sends completed, then prints the results, checks the data ({@code -c}) and closes; the exit status.
     */
    final int pingpong(WorkCompletion[] wc, int offset, byte fill) {
        long start = System.nanoTime();
        while (Integer.toUnsignedLong(rcnt) < iters || Integer.toUnsignedLong(scnt) < iters) {
            if (useEvent) {
                PingpongTool.awaitCqEvent(channel, cq, err);
                PingpongTool.armCq(cq, err);
            }
            int ne;
            int empty = 0;
            do {
                try {
                    ne = cq.poll(wc, wc.length);
                } catch (VerbsException e) {
                    err.append("poll CQ failed ").append(-e.errno().value()).append('\n');
                    return 1;
                }
                if (ne < 1) {
                    idle(++empty);
                }
            } while (!useEvent && ne < 1);
            for (int i = 0; i < ne; ++i) {
                if (!handleWc(wc[i], ne)) {
                    return 1;
                }
            }
            checkInterrupt();
        }
        long micros = (System.nanoTime() - start) / 1000;
        PingpongTool.printResults(out, micros, size, iters);
        int status = 0;
        if (servername == null && validateBuf && PingpongTool.validate(out, buf, offset, size, fill) > 0) {
            status = 1; // the real tool only prints the lines; a mismatch fails the run here
        }
        int closed = closeCtx(true);
        return status != 0 ? status : closed;
    }

    /**
     * What every tool does with a completion before its own bookkeeping: a failed status ends the
     * run, a receive is counted (and the receive queue refilled once at most {@code refillAt} are
     * left), a send is counted; false after the real tool's message.
     */
    final boolean countWc(WorkCompletion wc, long refillAt) {
        if (wc.status() != WcStatus.SUCCESS) {
            err.append("Failed status ").append(PingpongTool.wcStatusStr(wc.status())).append(" (")
                    .append(wc.status().ordinal()).append(") for wr_id ").append((int) wc.wrId()).append('\n');
            return false;
        }
        switch ((int) wc.wrId()) {
            case SEND_WRID -> ++scnt;
            case RECV_WRID -> {
                if (--routs <= refillAt) {
                    routs += postRecv(rxDepth - routs);
                    if (routs < rxDepth) {
                        err.append("Couldn't post receive (").append(routs).append(")\n");
                        return false;
                    }
                }
                ++rcnt;
            }
            default -> {
                err.append("Completion for unknown wr_id ").append((int) wc.wrId()).append('\n');
                return false;
            }
        }
        return true;
    }
}
