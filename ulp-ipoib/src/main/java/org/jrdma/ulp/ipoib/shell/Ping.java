package org.jrdma.ulp.ipoib.shell;

import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.cli.Getopt;
import org.jrdma.ulp.ipoib.IfAddress;
import org.jrdma.ulp.ipoib.IpoibInterface;
import org.jrdma.ulp.ipoib.IpoibInterfaces;
import org.jrdma.ulp.ipoib.IpoibReceiver;

/**
 * iputils' {@code ping} over an IPoIB interface: {@code ping [-4|-6] [-q] [-c count] [-i interval] [-s size]
 * [-W timeout] [-I iface] destination}, ICMP or ICMPv6 by the destination's family, its output lines and exit status (0 some reply, 1 none, 2 an error). The interface is the
 * one named by {@code -I}, else the first with the destination on-link that does not own it. While it runs, ping is the interface's
 * receiver (the kernel's raw ICMP socket); the receiver before it is put back at the end.
 */
final class Ping {
    private final IpoibInterfaces interfaces;
    private final PrintStream out;
    private final StringBuilder err;
    private final RttStats rtt = new RttStats();
    private long count = Long.MAX_VALUE;
    private double interval = 1.0;
    private int size = 56;
    private double linger = 10;
    private boolean quiet;
    private String iface;
    /** -4 or -6; 0: the destination's. */
    private int family;

    /** One reply as it arrived: its ICMP sequence, TTL, and when. */
    private record Reply(int seq, int ttl, int icmpBytes, long nanos) {
    }

    Ping(IpoibInterfaces interfaces, PrintStream out, StringBuilder err) {
        this.interfaces = interfaces;
        this.out = out;
        this.err = err;
    }

    int main(String[] args) {
        Getopt g = new Getopt("ping", args, "46qc:i:s:W:I:", new Getopt.LongOption[0], err);
        try {
            for (int c; (c = g.next()) != -1;) {
                switch (c) {
                    case '4' -> family = 4;
                    case '6' -> family = 6;
                    case 'q' -> quiet = true;
                    case 'c' -> count = Long.parseLong(g.optarg);
                    case 'i' -> interval = seconds(g.optarg, "bad timing interval", 0);
                    case 's' -> size = Integer.parseInt(g.optarg);
                    case 'W' -> linger = seconds(g.optarg, "bad linger time", 0.001);
                    case 'I' -> iface = g.optarg;
                    default -> {
                        return 2;
                    }
                }
            }
        } catch (NumberFormatException e) {
            return fail("ping: invalid argument: '" + e.getMessage().replaceFirst(".*\"(.*)\"", "$1") + "'");
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        if (g.operands().size() != 1) {
            return fail("ping: usage error: Destination address required");
        }
        if (count < 1 || interval < 0.001 || size < 0 || size > 65507) {
            return fail("ping: invalid argument: out of range");
        }
        return run(g.operands().get(0));
    }

    /**
     * iputils' {@code ping_strtod} and its range check: a finite number of seconds in [{@code min}, INT_MAX / 1000],
     * else {@code ping: WHAT: ARG} (so NaN or Infinity never reach the send loop, where they made a flood).
     */
    private static double seconds(String arg, String what, double min) {
        double v;
        try {
            v = Double.parseDouble(arg);
        } catch (NumberFormatException e) {
            v = Double.NaN;
        }
        if (!Double.isFinite(v) || v < min || v > Integer.MAX_VALUE / 1000 || arg.matches(".*[fFdD]\\s*")) {
            throw new IllegalArgumentException("ping: " + what + ": " + arg);
        }
        return v;
    }

    private int fail(String msg) {
        err.append(msg).append('\n');
        return 2;
    }

    private int run(String dest) {
        InetAddress dst = parse(dest);
        if (dst == null) {
            return fail("ping: " + dest + ": Name or service not known");
        }
        boolean v6 = dst instanceof Inet6Address;
        if (family != 0 && (family == 6) != v6) {
            return fail("ping: " + dest + ": Address family for hostname not supported");
        }
        Optional<IpoibInterface> dev = iface != null ? interfaces.get(iface)
                : interfaces.route(dst);
        if (dev.isEmpty()) {
            return fail(iface != null ? "ping: SO_BINDTODEVICE " + iface + ": No such device"
                    : "ping: connect: Network is unreachable");
        }
        IpoibInterface i = dev.get();
        Optional<IfAddress> src = source(i, dst);
        if (src.isEmpty()) {
            return fail("ping: bind icmp socket: Cannot assign requested address");
        }
        if (v6) { // iputils' IPv6 header line has no total, and no space before the parenthesis
            out.printf("PING %s(%s) from %s %s: %d data bytes%n", dest, IfAddress.text(dst),
                    IfAddress.text(src.get().address()), i.name(), size);
        } else {
            out.printf("PING %s (%s) from %s %s: %d(%d) bytes of data.%n", dest, dst.getHostAddress(),
                    src.get().address().getHostAddress(), i.name(), size, size + 28);
        }
        IpoibReceiver before = i.receiver();
        BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
        int id = ThreadLocalRandom.current().nextInt(1, 0x10000);
        i.setReceiver((x, p) -> reply(p, dst, id, replies));
        try {
            return loop(i, src.get().address(), dst, id, replies);
        } finally {
            i.setReceiver(before);
        }
    }

    /** A literal address (no names here): dotted quad or IPv6 text; null if it is neither. */
    private static InetAddress parse(String s) {
        IfAddress a = s.contains("/") ? null : IfAddress.parse(s);
        return a == null ? null : a.address();
    }

    /** The source: ours of the destination's family, on its prefix (and of its scope), else the first of the family. */
    private static Optional<IfAddress> source(IpoibInterface i, InetAddress dst) {
        List<IfAddress> same = i.addresses().stream()
                .filter(a -> a.address().getAddress().length == dst.getAddress().length).toList();
        return same.stream().filter(a -> a.onLink(dst) && a.address().isLinkLocalAddress() == dst.isLinkLocalAddress())
                .findFirst().or(() -> same.stream().filter(a -> a.address().isLinkLocalAddress()).findFirst())
                .or(() -> same.stream().findFirst());
    }

    private static void reply(ByteBuffer p, InetAddress dst, int id, BlockingQueue<Reply> q) {
        byte[] b = new byte[p.remaining()];
        p.get(b);
        if (dst instanceof Inet6Address) {
            replyV6(b, dst, id, q);
            return;
        }
        if (b.length < 20 || (b[0] & 0xf0) != 0x40) {
            return;
        }
        int ihl = (b[0] & 0x0f) * 4;
        if (b.length < ihl + 8 || b[9] != 1 || b[ihl] != 0 || (u16(b, ihl + 4)) != id) {
            return; // not our echo reply
        }
        byte[] from = {b[12], b[13], b[14], b[15]};
        if (java.util.Arrays.equals(from, dst.getAddress())) {
            q.add(new Reply(u16(b, ihl + 6), b[8] & 0xff, b.length - ihl, System.nanoTime()));
        }
    }

    /** An ICMPv6 echo reply (type 129) of ours from {@code dst}; the hop limit stands for iputils' ttl. */
    private static void replyV6(byte[] b, InetAddress dst, int id, BlockingQueue<Reply> q) {
        if (b.length < 48 || (b[0] & 0xf0) != 0x60 || b[6] != 58 || (b[40] & 0xff) != 129 || u16(b, 44) != id) {
            return;
        }
        if (java.util.Arrays.equals(java.util.Arrays.copyOfRange(b, 8, 24), dst.getAddress())) {
            q.add(new Reply(u16(b, 46), b[7] & 0xff, b.length - 40, System.nanoTime()));
        }
    }

    private static int u16(byte[] b, int off) {
        return (b[off] & 0xff) << 8 | b[off + 1] & 0xff;
    }

    private int loop(IpoibInterface i, InetAddress src, InetAddress dst, int id, BlockingQueue<Reply> replies) {
        long start = System.nanoTime();
        long[] sentAt = new long[0x10000]; // by ICMP sequence number
        long sent = 0;
        long received = 0;
        long next = start;
        boolean interrupted = false;
        try {
            while (sent < count || received < sent) {
                long now = System.nanoTime();
                if (sent < count && now >= next) {
                    int seq = (int) (++sent & 0xffff);
                    sentAt[seq] = now;
                    i.send(ByteBuffer.wrap(EchoRequest.build(src, dst, id, seq, size)));
                    next = now + (long) (interval * 1e9);
                }
                long deadline = sent < count ? next : start + (long) ((count - 1) * interval * 1e9 + linger * 1e9);
                if (sent == count && System.nanoTime() >= deadline) {
                    break;
                }
                Reply r = replies.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (r != null && sentAt[r.seq()] != 0) {
                    received++;
                    long us = (r.nanos() - sentAt[r.seq()]) / 1000;
                    rtt.add(us);
                    if (!quiet) {
                        out.printf("%d bytes from %s: icmp_seq=%d ttl=%d time=%s ms%n", r.icmpBytes(),
                                IfAddress.text(dst), r.seq(), r.ttl(), RttStats.ms(us));
                    }
                }
            }
        } catch (InterruptedException e) {
            interrupted = true; // Ctrl-C: the statistics, as iputils prints them on SIGINT
        }
        summary(dst, sent, received, (System.nanoTime() - start) / 1_000_000);
        if (interrupted) {
            // only now: a write with the flag set closes an interruptible channel (Gogo's pipe) and loses the summary
            Thread.currentThread().interrupt();
        }
        return received > 0 ? 0 : 1;
    }

    private void summary(InetAddress dst, long sent, long received, long ms) {
        out.printf("%n--- %s ping statistics ---%n", IfAddress.text(dst));
        out.printf("%d packets transmitted, %d received, %d%% packet loss, time %dms%n", sent, received,
                sent == 0 ? 0 : (sent - received) * 100 / sent, ms);
        if (received > 0) {
            out.println(String.format(Locale.ROOT, "rtt min/avg/max/mdev = %s ms", rtt.summary()));
        }
    }
}
