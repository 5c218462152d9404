package org.jrdma.perftest;

import org.jrdma.ib.core.cli.Exit;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.jrdma.ib.cm.RdmaCm;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.perftest.Params.Machine;

/**
 * What {@code perftest_communication.c} does over the side channel ({@link Comm}: TCP, or {@link CmComm}
 * for {@code -R}): establishing it, {@code exchange_versions}, {@code check_mtu},
 * {@code set_up_connection} (this side's {@link Dest}s), {@code ctx_hand_shake},
 * {@code ctx_close_connection} and {@code xchg_bw_reports}, each failing with perftest's messages.
 */
final class Communication {
    private static final Random RANDOM = new Random();

    private final Params p;
    private final StringBuilder err;
    final Comm comm;
    /** The side channel when it is the RDMA CM's ({@code -R}), else null. */
    final CmComm cmComm;
    String remVersion = Params.VERSION;
    /** The MTU both sides agreed on ({@code check_mtu}). */
    Mtu currMtu;
    /** Whether the keys carry GIDs ({@code -x}, or RoCE: {@code check_link} has set the index by now). */
    final boolean withGid;
    /** This side's QPs ({@code set_up_connection}) and the peer's, as exchanged. */
    final Dest[] my;
    final Dest[] rem;

    private Communication(Params p, StringBuilder err, Comm comm, CmComm cmComm) {
        this.p = p;
        this.err = err;
        this.comm = comm;
        this.cmComm = cmComm;
        this.withGid = p.gidIndex != -1;
        this.my = new Dest[p.numOfQps];
        this.rem = new Dest[p.numOfQps];
    }

    /** The TCP connection on {@code -p}'s port, or for {@code -R} the RDMA CM's side channel. */
    static Communication establish(Params p, RdmaCm cm, IbClient owner, PerfResources res, Runnable listening,
            StringBuilder err) {
        try {
            if (p.rdmaCm) {
                CmComm c = CmComm.establish(p, cm, owner, res, listening, err);
                return new Communication(p, err, c, c);
            }
            if (p.machine == Machine.CLIENT) {
                Comm c = Comm.Tcp.connect(p.servername, p.port);
                if (c == null) {
                    err.append("Couldn't connect to ").append(p.servername).append(':').append(p.port).append('\n');
                    err.append("Unable to open file descriptor for socket connection");
                    err.append(" Unable to init the socket connection\n");
                    throw Exit.exit(1);
                }
                return new Communication(p, err, c, null);
            }
            return new Communication(p, err, Comm.Tcp.accept(p.port, listening), null);
        } catch (java.nio.channels.ClosedByInterruptException e) {
            throw Exit.interrupted();
        } catch (java.net.UnknownHostException e) {
            err.append(p.servername).append(" for port ").append(p.port).append(": Name or service not known\n");
            err.append("Problem in resolving basic address and port\n");
            err.append("Unable to open file descriptor for socket connection");
            err.append(" Unable to init the socket connection\n");
            throw Exit.exit(1);
        } catch (IOException e) {
            if (p.machine == Machine.CLIENT) {
                err.append("Couldn't connect to ").append(p.servername).append(':').append(p.port).append('\n');
            } else {
                err.append("Couldn't listen to port ").append(p.port).append('\n');
            }
            err.append("Unable to open file descriptor for socket connection");
            err.append(" Unable to init the socket connection\n");
            throw Exit.exit(1);
        }
    }

    /** The largest page size (and cache line) a peer may announce: Linux's base pages are at most 64 KiB; 1 MiB. */
    static final int MAX_REMOTE_PAGE_SIZE = 1 << 20;

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
            throw Exit.exit(1);
        }
        int remCycle = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt(p.cycleBuffer).array())).getInt();
        int remCache = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt(p.cacheLineSize).array())).getInt();
        if (remCycle > MAX_REMOTE_PAGE_SIZE || remCache > MAX_REMOTE_PAGE_SIZE) {
            // check_sys_data takes the larger page size, and ctx_init allocates 2 x QPs x that: a peer's word
            // must not size our memory (an 809 MB "page" made ib_send_bw's server die of OutOfMemoryError)
            err.append(" Remote page size ").append(remCycle).append(" or cache line ").append(remCache)
                    .append(" is not supported\n");
            throw Exit.exit(1);
        }
        p.cycleBuffer = Math.max(p.cycleBuffer, remCycle);
        p.cacheLineSize = Math.max(p.cacheLineSize, remCache);
    }

    /** {@code set_mtu} then {@code check_mtu}: the enum as {@code "%d"} in two bytes, the smaller one wins. */
    void checkMtu(IbDevice dev, PrintStream out) {
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

    /** {@code set_up_connection}: what this side tells the other of each QP. */
    void setUpConnection(PerfResources res) {
        Gid gid = Gid.ZERO;
        int lid = 0;
        try {
            lid = res.dev.queryPort(p.ibPort).lid();
            if (withGid) {
                if (!p.useGidUser) {
                    p.gidIndex = bestGidIndex(res.dev);
                }
                gid = res.dev.queryGid(p.ibPort, p.gidIndex);
            }
        } catch (VerbsException e) {
            err.append(" Unable to set up socket connection\n");
            throw Exit.exit(1);
        }
        for (int i = 0; i < p.numOfQps; i++) {
            my[i] = new Dest(lid, p.outReads, res.qps[i].qpNum(), RANDOM.nextInt(1 << 24), res.bufs.mr().rkey(),
                    res.remoteAddr(i), gid.raw(), 0);
        }
    }

    /** {@code get_best_gid_index}: a RoCE v2 GID (IPv4-mapped) if the table has one, else 0. */
    private int bestGidIndex(IbDevice dev) {
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

    private void checkGidCompatibility() {
        if (p.rdmaCm || !withGid) {
            return;
        }
        if (Gid.of(my[0].gid()).isV4Mapped() != Gid.of(rem[0].gid()).isV4Mapped()) {
            err.append("\n Found Incompatibility issue with GID types.\n");
            err.append(" Please Try to use a different IP version.\n\n");
            throw Exit.exit(1);
        }
    }

    /**
     * What every main does before its first sync: {@code ctx_hand_shake} of every QP's keys (the peer's
     * kept in {@link #rem}), the GID types checked, and {@code ctx_connect}.
     */
    void connect(PerfResources res) {
        for (int i = 0; i < p.numOfQps; i++) {
            rem[i] = handShake(my[i]);
        }
        checkGidCompatibility();
        res.connectQps(this);
    }

    /**
     * {@code ctx_print_pingpong_data} for the local QPs, then the REMOTE handshake of each QP and its
     * line (the exchange happens between the two, as perftest's mains do it).
     */
    void printDests(PerfReport report, PrintStream out) {
        for (int i = 0; i < p.numOfQps; i++) {
            report.printDest("local", my[i]);
        }
        for (int i = 0; i < p.numOfQps; i++) {
            rem[i] = handShake(my[i]);
            report.printDest("remote", rem[i]);
        }
        out.flush();
    }

    // ------------------------------------------------------------------ the exchanges

    byte[] xchg(byte[] mine) {
        try {
            return comm.xchg(mine);
        } catch (java.nio.channels.ClosedByInterruptException e) {
            throw Exit.interrupted();
        } catch (IOException e) {
            Exit.checkInterrupt();
            err.append("ethernet_read_data: Couldn't read reports\n");
            err.append(" Unable to read from socket/rdma_cm\n");
            err.append(" Failed to exchange data between server and clients\n");
            throw Exit.exit(1);
        }
    }

    Dest handShake(Dest mine) {
        Dest r;
        try {
            r = comm.handShake(mine, withGid);
        } catch (java.nio.channels.ClosedByInterruptException e) {
            throw Exit.interrupted();
        } catch (IOException e) {
            Exit.checkInterrupt();
            err.append("ethernet_read_keys: Couldn't read remote address\n");
            err.append(" Unable to read from socket/rdma_cm\n");
            err.append("Failed to exchange data between server and clients\n");
            throw Exit.exit(1);
        }
        if (r == null) {
            err.append("Couldn't parse line <...>\n");
            err.append(" Unable to read from socket/rdma_cm\n");
            err.append("Failed to exchange data between server and clients\n");
            throw Exit.exit(1);
        }
        return r;
    }

    /** A handshake of the first QP's keys: the sync points of perftest's mains. */
    void sync() {
        handShake(my[0]);
    }

    void closeConnection() {
        try {
            comm.closeConnection(my[0], withGid);
        } catch (java.nio.channels.ClosedByInterruptException e) {
            throw Exit.interrupted();
        } catch (IOException e) {
            Exit.checkInterrupt();
            err.append("Failed to close connection between server and client\n");
            throw Exit.exit(1);
        }
    }

    /** {@code xchg_bw_reports}: size, iters (8 bytes from 5.33 on), peak, average, message rate, big-endian. */
    PerfReport.BwReport xchgBwReports(PerfReport.BwReport mine) {
        long size = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putLong(mine.size()).array())).getLong();
        long iters;
        if (atof(remVersion) >= 5.33) {
            iters = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putLong(mine.iters()).array())).getLong();
        } else {
            iters = ByteBuffer.wrap(xchg(ByteBuffer.allocate(4).putInt((int) mine.iters()).array())).getInt();
        }
        double peak = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.bwPeak()).array())).getDouble();
        double avg = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.bwAvg()).array())).getDouble();
        double rate = ByteBuffer.wrap(xchg(ByteBuffer.allocate(8).putDouble(mine.msgRate()).array())).getDouble();
        return new PerfReport.BwReport(size, iters, peak, avg, rate);
    }

    /** C's {@code atof} on a version string: its leading digits and dots. */
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
}
