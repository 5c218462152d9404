package org.jrdma.hw.rxe.interop;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.hw.rxe.wire.Aeth;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.IcrcIpv4Span;
import org.jrdma.hw.rxe.wire.RxeWire;

/**
 * Early interop probe against the real Linux rxe in the rxepeer guest (shared/peer/linux-rxe): plays the
 * <em>client</em> of {@code ibv_rc_pingpong -d rxe0 -g 1 -n 1 -s 64} with nothing but the jrdma wire code and
 * unconnected UDP sockets, to settle whether Linux accepts our IPv4 ICRC computed with IP ID 0.
 *
 * <ol>
 * <li>binds UDP 192.0.2.1:4791 (responses) and, unless the source port is 4791, a second unconnected
 * channel on 192.0.2.1:SPORT (0 = ephemeral) to send from;</li>
 * <li>rc_pingpong TCP exchange on 192.0.2.2:18515 ({@code LLLL:QQQQQQ:PPPPPP:GID\0}, then {@code done\0});</li>
 * <li>optionally a negative control: the same SEND with an ICRC computed for IP ID 1 (must be dropped);</li>
 * <li>one RC SEND Only (64 bytes, AckReq, PSN = the one we advertised, ICRC with IP ID 0);</li>
 * <li>waits for the ACK, checks every received packet's ICRC with {@link IcrcIpv4Span} (recovers its IP ID),
 * answers the server's own SEND (the "pong") with an ACK (ICRC with ID 0) and watches for retransmissions.</li>
 * </ol>
 * Must run inside netns rxepeer: {@code guest.sh hostrun java -cp ... LinuxRxeProbe [--sport N]}.
 */
public final class LinuxRxeProbe {
    public static final int HOST_IP = 0xc0000201; // 192.0.2.1
    public static final int GUEST_IP = 0xc0000202; // 192.0.2.2
    static final String HOST = "192.0.2.1";
    static final String GUEST = "192.0.2.2";
    static final int RC_SEND_ONLY = 0x04;
    static final int RC_ACKNOWLEDGE = 0x11;
    static final int PAYLOAD = 64;

    /** What happened. */
    public static final class Result {
        public int srcPort;
        /** IP_MTU_DISCOVER of the sending socket as read back (-1 if unknown). */
        public int pmtuDisc = -1;
        public int ourQpn;
        public int ourPsn;
        public int serverQpn;
        public int serverPsn;
        /** Response to the bad-ICRC control packet (should stay false). */
        public boolean controlAnswered;
        /** ACK (or NAK) for our SEND: AETH syndrome, -1 if none. */
        public int ackSyndrome = -1;
        public int ackMsn = -1;
        public int ackPsn = -1;
        /** IP ID recovered from the ACK's ICRC (IcrcIpv4Span), -1 = inconsistent, -2 = no ACK. */
        public int ackRecoveredId = -2;
        /** The server's own SEND (pong) to our QP. */
        public int pongPsn = -1;
        public int pongRecoveredId = -2;
        public int pongPayload = -1;
        /** How often the server sent its pong (1 = our ACK for it was accepted). */
        public int pongCount;
        /** Packets whose ICRC no IP ID explains. */
        public int badIcrc;
        /** UDP source port of the guest's packets, and what UdpSourcePort predicts for this QP pair. */
        public int guestSrcPort = -1;
        public int predictedGuestSrcPort = -1;
        public final List<String> log = new ArrayList<>();

        void log(String fmt, Object... args) {
            String s = String.format(fmt, args);
            log.add(s);
            System.out.println("probe: " + s);
        }

        public boolean acked() {
            return ackSyndrome >= 0 && (ackSyndrome & Aeth.TYPE_MASK) == Aeth.ACK;
        }
    }

    /** Linux IP_MTU_DISCOVER values (linux/in.h). */
    public static final int IP_PMTUDISC_WANT = 1;
    public static final int IP_PMTUDISC_DO = 2;
    private static final int IPPROTO_IP = 0;
    private static final int IP_MTU_DISCOVER = 10;

    private LinuxRxeProbe() {
    }

    /**
     * setsockopt(IPPROTO_IP, IP_MTU_DISCOVER) on a JDK DatagramChannel. JDK 17 has no API for it (JDK 19+ has
     * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT}, which on Linux sets IP_PMTUDISC_DO; Netty's epoll
     * transport can use {@code IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10)}); this probe reaches into
     * sun.nio.ch and needs {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}.
     */
    static void setPmtuDisc(DatagramChannel ch, int mode) throws IOException {
        try {
            java.lang.reflect.Method set = Class.forName("sun.nio.ch.Net").getDeclaredMethod("setIntOption0",
                    java.io.FileDescriptor.class, boolean.class, int.class, int.class, int.class, boolean.class);
            set.setAccessible(true);
            set.invoke(null, fd(ch), false, IPPROTO_IP, IP_MTU_DISCOVER, mode, false);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("cannot set IP_MTU_DISCOVER (run with --add-opens java.base/sun.nio.ch=ALL-UNNAMED)",
                    e);
        }
    }

    static int getPmtuDisc(DatagramChannel ch) {
        try {
            java.lang.reflect.Method get = Class.forName("sun.nio.ch.Net").getDeclaredMethod("getIntOption0",
                    java.io.FileDescriptor.class, boolean.class, int.class, int.class);
            get.setAccessible(true);
            return (Integer) get.invoke(null, fd(ch), false, IPPROTO_IP, IP_MTU_DISCOVER);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static java.io.FileDescriptor fd(DatagramChannel ch) throws ReflectiveOperationException {
        java.lang.reflect.Method getFd = ch.getClass().getMethod("getFD");
        getFd.setAccessible(true);
        return (java.io.FileDescriptor) getFd.invoke(ch);
    }

    /**
     * @param srcPort UDP source port of our packets: 4791, or 0 for an ephemeral one
     * @param control first send a copy with an ICRC for IP ID 1 and check it is ignored
     * @param timeoutMs how long to wait for each answer
     */
    public static Result run(int srcPort, int ourQpn, int ourPsn, boolean control, long timeoutMs)
            throws IOException, InterruptedException {
        return run(srcPort, ourQpn, ourPsn, control, timeoutMs, IP_PMTUDISC_DO);
    }

    /**
     * @param pmtuDisc IP_MTU_DISCOVER for the sending socket: {@link #IP_PMTUDISC_DO} (DF, and the kernel's
     *        ID 0 for unconnected sockets) or {@link #IP_PMTUDISC_WANT} (the default: DF but skb->ignore_df, so
     *        the kernel picks a hashed per-destination ID), or -1 to leave the socket alone
     */
    public static Result run(int srcPort, int ourQpn, int ourPsn, boolean control, long timeoutMs, int pmtuDisc)
            throws IOException, InterruptedException {
        Result res = new Result();
        res.ourQpn = ourQpn;
        res.ourPsn = ourPsn;
        Icrc icrc = new Icrc();
        InetSocketAddress guestRoce = new InetSocketAddress(GUEST, RxeWire.ROCE_V2_UDP_DPORT);
        try (DatagramChannel rx = DatagramChannel.open();
                DatagramChannel extra = srcPort == RxeWire.ROCE_V2_UDP_DPORT ? null : DatagramChannel.open();
                Selector sel = Selector.open()) {
            rx.bind(new InetSocketAddress(HOST, RxeWire.ROCE_V2_UDP_DPORT));
            DatagramChannel tx = rx;
            if (extra != null) {
                extra.bind(new InetSocketAddress(HOST, srcPort));
                tx = extra;
            }
            res.srcPort = ((InetSocketAddress) tx.getLocalAddress()).getPort();
            if (pmtuDisc >= 0) {
                setPmtuDisc(tx, pmtuDisc);
            }
            res.pmtuDisc = getPmtuDisc(tx);
            rx.configureBlocking(false);
            rx.register(sel, SelectionKey.OP_READ);
            res.log("UDP rx %s, tx %s (unconnected: %s, IP_MTU_DISCOVER %d)", rx.getLocalAddress(),
                    tx.getLocalAddress(), !tx.isConnected(), res.pmtuDisc);

            try (Socket tcp = connect(timeoutMs)) {
                String gid = String.format("%08x%08x%08x%08x", 0, 0, 0xffff, HOST_IP);
                String mine = String.format("%04x:%06x:%06x:%s", 0, ourQpn, ourPsn, gid);
                OutputStream out = tcp.getOutputStream();
                out.write((mine + "\0").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] reply = new byte[52];
                new DataInputStream(tcp.getInputStream()).readFully(reply);
                String theirs = new String(reply, 0, 51, StandardCharsets.US_ASCII);
                String[] f = theirs.split(":");
                res.serverQpn = Integer.parseInt(f[1], 16);
                res.serverPsn = Integer.parseInt(f[2], 16);
                res.log("TCP handshake: sent '%s', got '%s' -> server QPN 0x%06x PSN 0x%06x", mine, theirs,
                        res.serverQpn, res.serverPsn);
                out.write("done\0".getBytes(StandardCharsets.US_ASCII));
                out.flush();

                ByteBuf send = Unpooled.buffer(Bth.BYTES + PAYLOAD + RxeWire.ICRC_BYTES);
                send.writeZero(send.capacity());
                Bth.encode(send, 0, RC_SEND_ONLY, false, false, 0, RxeWire.DEFAULT_PKEY, res.serverQpn, true, ourPsn);
                for (int i = 0; i < PAYLOAD; i++) {
                    send.setByte(Bth.BYTES + i, 'a' + i % 26);
                }
                int len = send.capacity();
                if (control) {
                    Icrc.store(send, 0, len, icrc.ipv4(HOST_IP, GUEST_IP, 1, Icrc.IPV4_DF, res.srcPort,
                            RxeWire.ROCE_V2_UDP_DPORT, send, 0, len));
                    tx.send(send.nioBuffer(), guestRoce);
                    res.log("control: sent SEND Only psn 0x%06x with ICRC for IP ID 1 (0x%08x)", ourPsn,
                            Icrc.stored(send, 0, len));
                    if (receive(rx, sel, timeoutMs / 2, res, icrc, tx, guestRoce)) {
                        res.controlAnswered = true;
                    }
                }
                Icrc.store(send, 0, len, icrc.ipv4(HOST_IP, GUEST_IP, 0, Icrc.IPV4_DF, res.srcPort,
                        RxeWire.ROCE_V2_UDP_DPORT, send, 0, len));
                tx.send(send.nioBuffer(), guestRoce);
                res.log("sent SEND Only qpn 0x%06x psn 0x%06x AckReq, %d B payload, ICRC(IP ID 0) 0x%08x, from port %d",
                        res.serverQpn, ourPsn, PAYLOAD, Icrc.stored(send, 0, len), res.srcPort);
                long deadline = System.currentTimeMillis() + timeoutMs;
                while (System.currentTimeMillis() < deadline && (res.ackSyndrome < 0 || res.pongCount == 0)) {
                    receive(rx, sel, deadline - System.currentTimeMillis(), res, icrc, tx, guestRoce);
                }
                // after our ACK for the pong: a retransmitted pong would mean the ACK was not accepted
                long quiet = System.currentTimeMillis() + Math.min(timeoutMs, 3000);
                while (System.currentTimeMillis() < quiet) {
                    receive(rx, sel, quiet - System.currentTimeMillis(), res, icrc, tx, guestRoce);
                }
            }
        }
        return res;
    }

    private static Socket connect(long timeoutMs) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(GUEST, 18515), 2000);
                s.setSoTimeout((int) timeoutMs);
                return s;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** Waits up to {@code ms} for one datagram and handles it; false on timeout. */
    private static boolean receive(DatagramChannel rx, Selector sel, long ms, Result res, Icrc icrc,
            DatagramChannel tx, SocketAddress guestRoce) throws IOException {
        if (ms <= 0 || sel.select(ms) == 0) {
            return false;
        }
        sel.selectedKeys().clear();
        ByteBuffer nio = ByteBuffer.allocate(2048);
        SocketAddress from = rx.receive(nio);
        if (from == null) {
            return false;
        }
        nio.flip();
        int len = nio.remaining();
        ByteBuf b = Unpooled.wrappedBuffer(nio);
        int sport = ((InetSocketAddress) from).getPort();
        if (len < Bth.BYTES + RxeWire.ICRC_BYTES) {
            res.log("short datagram %d B from %s", len, from);
            return true;
        }
        int id = IcrcIpv4Span.recoverId(icrc, GUEST_IP, HOST_IP, Icrc.IPV4_DF, sport, RxeWire.ROCE_V2_UDP_DPORT, b,
                0, len);
        int op = Bth.opcode(b, 0);
        int qpn = Bth.qpn(b, 0);
        int psn = Bth.psn(b, 0);
        if (id < 0) {
            res.badIcrc++;
        }
        if (res.guestSrcPort < 0) {
            res.guestSrcPort = sport;
            res.predictedGuestSrcPort = org.jrdma.hw.rxe.wire.UdpSourcePort.ofConnection(0, res.serverQpn,
                    res.ourQpn);
            res.log("guest UDP source port %d, UdpSourcePort.ofConnection(0, 0x%x, 0x%x) = %d", sport, res.serverQpn,
                    res.ourQpn, res.predictedGuestSrcPort);
        }
        String icrcText = id < 0 ? "ICRC INCONSISTENT with every IP ID" : "ICRC ok for IP ID " + id
                + String.format(" (0x%04x)", id);
        if (op == RC_ACKNOWLEDGE) {
            int syn = Aeth.syn(b, Bth.BYTES);
            int msn = Aeth.msn(b, Bth.BYTES);
            res.log("rx from %s: ACKNOWLEDGE qpn 0x%06x psn 0x%06x AETH syndrome 0x%02x msn %d, %d B, %s", from, qpn,
                    psn, syn, msn, len, icrcText);
            if (psn == res.ourPsn && res.ackSyndrome < 0) {
                res.ackSyndrome = syn;
                res.ackMsn = msn;
                res.ackPsn = psn;
                res.ackRecoveredId = id;
            }
        } else if (op == RC_SEND_ONLY) {
            res.pongCount++;
            res.pongPsn = psn;
            res.pongRecoveredId = id;
            res.pongPayload = len - Bth.BYTES - RxeWire.ICRC_BYTES - Bth.pad(b, 0);
            res.log("rx from %s: SEND Only qpn 0x%06x psn 0x%06x AckReq %s, %d B payload, %s (#%d)", from, qpn, psn,
                    Bth.ackReq(b, 0), res.pongPayload, icrcText, res.pongCount);
            ByteBuf ack = Unpooled.buffer(Bth.BYTES + Aeth.BYTES + RxeWire.ICRC_BYTES);
            ack.writeZero(ack.capacity());
            Bth.encode(ack, 0, RC_ACKNOWLEDGE, false, false, 0, RxeWire.DEFAULT_PKEY, res.serverQpn, false, psn);
            Aeth.encode(ack, Bth.BYTES, Aeth.ACK_UNLIMITED, 1);
            int alen = ack.capacity();
            Icrc.store(ack, 0, alen, icrc.ipv4(HOST_IP, GUEST_IP, 0, Icrc.IPV4_DF, res.srcPort,
                    RxeWire.ROCE_V2_UDP_DPORT, ack, 0, alen));
            tx.send(ack.nioBuffer(), guestRoce);
            res.log("sent ACKNOWLEDGE qpn 0x%06x psn 0x%06x syndrome 0x1f msn 1, ICRC(IP ID 0), from port %d",
                    res.serverQpn, psn, res.srcPort);
        } else {
            res.log("rx from %s: opcode 0x%02x qpn 0x%06x psn 0x%06x, %d B, %s", from, op, qpn, psn, len, icrcText);
        }
        return true;
    }

    /**
     * {@code LinuxRxeProbe [--sport N] [--qpn HEX] [--psn HEX] [--no-control] [--timeout MS]
     * [--pmtudisc do|want|default]}; exit 0 if ACKed and the bad-ICRC control was ignored.
     */
    public static void main(String[] args) throws Exception {
        int sport = RxeWire.ROCE_V2_UDP_DPORT;
        int qpn = 0x000abc;
        int psn = 0x123456;
        boolean control = true;
        long timeout = 10_000;
        int pmtu = IP_PMTUDISC_DO;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sport" -> sport = Integer.parseInt(args[++i]);
                case "--qpn" -> qpn = Integer.parseInt(args[++i], 16);
                case "--psn" -> psn = Integer.parseInt(args[++i], 16);
                case "--no-control" -> control = false;
                case "--timeout" -> timeout = Long.parseLong(args[++i]);
                case "--pmtudisc" -> pmtu = switch (args[++i]) {
                    case "do" -> IP_PMTUDISC_DO;
                    case "want" -> IP_PMTUDISC_WANT;
                    case "default" -> -1;
                    default -> throw new IllegalArgumentException("--pmtudisc do|want|default");
                };
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Result r = run(sport, qpn, psn, control, timeout, pmtu);
        System.out.printf("probe: RESULT pmtudisc=%d sport=%d acked=%s syndrome=0x%02x ackId=%d controlAnswered=%s pongs=%d "
                + "pongId=%d badIcrc=%d guestSport=%d predictedSport=%d%n", r.pmtuDisc, r.srcPort, r.acked(), r.ackSyndrome & 0xff, r.ackRecoveredId,
                r.controlAnswered, r.pongCount, r.pongRecoveredId, r.badIcrc, r.guestSrcPort, r.predictedGuestSrcPort);
        System.exit(r.acked() && !r.controlAnswered ? 0 : 1);
    }
}
