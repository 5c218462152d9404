package org.jrdma.ib.tools;

import static org.jrdma.ib.core.cli.Exit.exit;
import static org.jrdma.ib.core.cli.Exit.interrupted;

import java.io.IOException;
import java.io.PrintStream;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Random;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.cli.CommandFailure;
import org.jrdma.ib.core.cli.Exit;
import org.jrdma.ib.core.cli.Printf;
import org.jrdma.ib.core.cli.ToolMain;

/**
 * One of rdma-core 44's {@code libibverbs/examples} pingpong tools, re-implemented on the ib-core
 * verbs API only (no driver class is used), so it runs on any jrdma device and talks to the real
 * tool over the same TCP handshake.
 * <p>What the real tool writes to stdout goes to {@code out} as it is produced. What it writes to
 * stderr is collected: {@link #execute} (the Gogo command) throws it as the {@link CommandFailure}
 * message with the exit status, so the {@code ./jrdma} launcher prints it once; {@link #run} prints
 * it and returns the status, as a process would.
 * <p>A run never outlives its thread's interrupt (Ctrl-C in Gogo, a stopping bundle): every wait
 * (connect, accept, TCP reads, completion polling and events) ends, everything is destroyed, and the
 * status is 130, as for a process killed by SIGINT. Every other way out destroys everything too.
 */
public abstract class PingpongTool {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** {@code sysconf(_SC_PAGESIZE)} on the hosts the real tools run on; the {@code -c} pattern depends on it. */
    static final int PAGE_SIZE = 4096;
    /** The fill byte of the real tools' buffers ({@code memset(ctx->buf, 0x7b, size)}). */
    static final byte FILL = 0x7b;
    /** The exit status of a run ended by an interrupt (128 + SIGINT). */
    public static final int INTERRUPTED = Exit.INTERRUPTED;

    private static final Random RANDOM = new Random();

    private final String prog;
    /** Test hook: called once the server's socket listens. */
    volatile Runnable listening;

    PingpongTool(String prog) {
        this.prog = prog;
    }

    /** The tool's name, {@code argv[0]} ({@code ibv_rc_pingpong}). */
    public final String name() {
        return prog;
    }

    /** The tools of this bundle: {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong}, {@code ibv_ud_pingpong}, {@code ibv_srq_pingpong}. */
    public static List<PingpongTool> all() {
        return List.of(new Pingpong(Pingpong.Transport.RC), new Pingpong(Pingpong.Transport.UC),
                new Pingpong(Pingpong.Transport.UD), new SrqPingpong());
    }

    /** The tool called {@code name}, or null. */
    public static PingpongTool named(String name) {
        for (PingpongTool t : all()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /**
     * Runs the tool as a Gogo command: returns normally for exit status 0 (printing any stderr text
     * to {@code err}), else throws {@link CommandFailure} with the status and the stderr text.
     */
    public final void execute(IbCore core, PrintStream out, PrintStream err, String... args) {
        ToolMain.execute(out, err, stderr -> main(core, out, stderr, args));
    }

    /** Runs the tool as a process would: stderr text printed to {@code err}, the exit status returned. */
    public final int run(IbCore core, PrintStream out, PrintStream err, String... args) {
        return ToolMain.run(out, err, stderr -> main(core, out, stderr, args));
    }

    /**
     * The C {@code main}: returns the exit status; {@code stderr} collects what the real tool
     * writes to stderr. Never throws for what the real tool reports; whatever it allocated is
     * released when it returns.
     */
    final int main(IbCore core, PrintStream out, StringBuilder stderr, String[] args) {
        PingpongRun r = newRun(out, stderr);
        try {
            if (!parse(r, args)) {
                usage(out);
                return 1;
            }
            return r.main(core);
        } catch (Exit e) {
            return e.status();
        } finally {
            // release everything with the interrupt flag clear, so no wait inside a destroy is cut short
            boolean interrupted = Thread.interrupted();
            r.closeCtx(false);
            out.flush();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A run of this tool, its options not parsed yet. */
    abstract PingpongRun newRun(PrintStream out, StringBuilder stderr);

    /** The getopt loop of this tool; false when the usage is to be printed. */
    abstract boolean parse(PingpongRun run, String[] args);

    /** The usage text of this tool. */
    abstract void usage(PrintStream out);

    // ------------------------------------------------------------------ shared by the tools

    /** {@code lrand48() & 0xffffff}. */
    static int randomPsn() {
        return RANDOM.nextInt(1 << 24);
    }

    /** {@code pp_mtu_to_enum}: null for what the C code turns into the invalid enum value -1. */
    static Mtu mtuOf(long bytes) {
        switch ((int) bytes) {
            case 256: return Mtu.MTU_256;
            case 512: return Mtu.MTU_512;
            case 1024: return Mtu.MTU_1024;
            case 2048: return Mtu.MTU_2048;
            case 4096: return Mtu.MTU_4096;
            default: return null;
        }
    }

    /** Whether a remote GID asks for a GRH: {@code dest->gid.global.interface_id != 0}. */
    static boolean needsGrh(Gid gid) {
        return gid.interfaceId() != 0;
    }

    /** The two result lines of every tool (float arithmetic as in C). */
    static void printResults(PrintStream out, long micros, long size, long iters) {
        float usec = micros;
        long bytes = size * iters * 2;
        out.println(bytes + " bytes in " + Printf.f2(usec / 1000000.) + " seconds = "
                + Printf.f2(bytes * 8. / usec) + " Mbit/sec");
        out.println((int) iters + " iters in " + Printf.f2(usec / 1000000.) + " seconds = "
                + Printf.f2(usec / (float) iters) + " usec/iter");
        out.flush();
    }

    /** The usage text of the tool, with {@code argv[0]}. */
    static void usageHead(PrintStream out, String argv0) {
        out.print("Usage:\n");
        out.print("  " + argv0 + "            start a server and wait for connection\n");
        out.print("  " + argv0 + " <host>     connect to server at <host>\n");
        out.print("\n");
        out.print("Options:\n");
    }

    /**
     * The received-data check of {@code -c}: the real tools check the first byte of every page
     * ({@code buf[i] != i / page_size % sizeof(char)}, i.e. 0, written so by the client before its
     * first send); this also checks that the rest of the page still holds {@code fill}, the byte
     * the real client's buffer was filled with. Prints the real tool's line for each bad page; returns
     * how many there were.
     */
    static int validate(PrintStream out, java.nio.ByteBuffer buf, int offset, long size, byte fill) {
        int bad = 0;
        for (long i = 0; i < size; i += PAGE_SIZE) {
            boolean ok = buf.get(offset + (int) i) == 0;
            long end = Math.min(size, i + PAGE_SIZE);
            for (long j = i + 1; ok && j < end; j++) {
                ok = buf.get(offset + (int) j) == fill;
            }
            if (!ok) {
                out.println("invalid data in page " + (int) (i / PAGE_SIZE));
                bad++;
            }
        }
        out.flush();
        return bad;
    }

    /** What the client writes before its first send with {@code -c}: 0 at the start of every page. */
    static void fillPattern(java.nio.ByteBuffer buf, int offset, long size) {
        for (long i = 0; i < size; i += PAGE_SIZE) {
            buf.put(offset + (int) i, (byte) 0);
        }
    }

    /** {@code ibv_wc_status_str} of rdma-core 44 (its texts differ from the kernel's in places). */
    static String wcStatusStr(WcStatus s) {
        return switch (s) {
            case SUCCESS -> "success";
            case LOC_LEN_ERR -> "local length error";
            case LOC_QP_OP_ERR -> "local QP operation error";
            case LOC_EEC_OP_ERR -> "local EE context operation error";
            case LOC_PROT_ERR -> "local protection error";
            case WR_FLUSH_ERR -> "Work Request Flushed Error";
            case MW_BIND_ERR -> "memory management operation error";
            case BAD_RESP_ERR -> "bad response error";
            case LOC_ACCESS_ERR -> "local access error";
            case REM_INV_REQ_ERR -> "remote invalid request error";
            case REM_ACCESS_ERR -> "remote access error";
            case REM_OP_ERR -> "remote operation error";
            case RETRY_EXC_ERR -> "transport retry counter exceeded";
            case RNR_RETRY_EXC_ERR -> "RNR retry counter exceeded";
            case LOC_RDD_VIOL_ERR -> "local RDD violation error";
            case REM_INV_RD_REQ_ERR -> "remote invalid RD request";
            case REM_ABORT_ERR -> "aborted error";
            case INV_EECN_ERR -> "invalid EE context number";
            case INV_EEC_STATE_ERR -> "invalid EE context state";
            case FATAL_ERR -> "fatal error";
            case RESP_TIMEOUT_ERR -> "response timeout error";
            case GENERAL_ERR -> "general error";
        };
    }

    /** One step of {@code pp_close_ctx}: release, and report only the first failure, as the C tools. */
    static int releaseStep(StringBuilder err, int status, boolean report, Runnable destroy, String message) {
        if (destroy == null) {
            return status;
        }
        try {
            destroy.run();
        } catch (RuntimeException e) {
            // gone with its device already, or refused: report once, go on releasing the rest
            if (report && status == 0) {
                err.append(message);
                return 1;
            }
        }
        return status;
    }

    /** {@code ibv_get_cq_event}: waits for the completion handler, or fails if the CQ went away. */
    static void awaitCqEvent(java.util.concurrent.Semaphore channel, org.jrdma.ib.core.CompletionQueue cq,
            StringBuilder err) {
        try {
            while (!channel.tryAcquire(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (!cq.isValid()) {
                    err.append("Failed to get cq_event\n");
                    throw exit(1);
                }
            }
        } catch (InterruptedException e) {
            throw interrupted();
        }
    }

    /** {@code ibv_req_notify_cq(cq, 0)}. */
    static void armCq(org.jrdma.ib.core.CompletionQueue cq, StringBuilder err) {
        try {
            cq.reqNotify(org.jrdma.ib.core.CqNotify.NEXT_COMP, false);
        } catch (org.jrdma.ib.core.VerbsException e) {
            err.append("Couldn't request CQ notification\n");
            throw exit(1);
        }
    }

    /** The client's side of {@code pp_client_exch_dest} up to the connect: null after the real tool's message. */
    static SocketChannel connectTo(String host, int port, StringBuilder err) {
        SocketChannel sock;
        try {
            sock = Tcp.connect(host, port);
        } catch (UnknownHostException e) {
            err.append("Name or service not known for ").append(host).append(':').append(port).append('\n');
            return null;
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        }
        if (sock == null) {
            err.append("Couldn't connect to ").append(host).append(':').append(port).append('\n');
        }
        return sock;
    }

    /** The server's side of {@code pp_server_exch_dest} up to the accept: null after the real tool's message. */
    final SocketChannel acceptOn(int port, StringBuilder err) {
        ServerSocketChannel listener;
        try {
            listener = Tcp.listen(port);
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        } catch (IOException e) {
            err.append("Couldn't listen to port ").append(port).append('\n');
            return null;
        }
        try (ServerSocketChannel l = listener) {
            Runnable hook = listening;
            if (hook != null) {
                hook.run();
            }
            return l.accept();
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        } catch (IOException e) {
            err.append("accept() failed\n");
            return null;
        }
    }
}
