package org.jrdma.hw.rxe.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jrdma.hw.rxe.PacketPool;
import org.jrdma.hw.rxe.RxeDevice;
import org.jrdma.hw.rxe.RxeWire;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The real rxe transport ({@code rxe_net.c}): RoCEv2 over UDP through Netty. One <b>unconnected</b> datagram
 * channel per local address of an attached {@link RxeDevice}, bound to that address (never the wildcard,
 * so the recipient of a received datagram is the device's own address) on UDP {@value #ROCE_PORT}; epoll
 * where {@link Epoll#isAvailable()}, else NIO.
 *
 * <p><b>Source port.</b> Linux rxe sends from a per-QP flow port (0xC000..0xFFFF) to 4791. This wire sends
 * every packet from the channel bound on 4791 instead ({@link #udpSourcePort} returns 4791, so the device
 * computes the ICRC over the port really on the wire). Linux accepts that: {@code rxe_udp_encap_recv} is
 * registered on the destination port and never looks at the source port, and the ICRC is computed over the
 * UDP header as received. What is lost is ECMP/RSS spreading by flow port, which does not matter here.
 * Unconnected + {@code IP_PMTUDISC_DO} gives IPv4 ID 0, which is what the ICRC is computed with (the
 * default PMTUDISC_WANT does not; see hw-rxe/NOTES.md and {@link #dontFragment(Channel)}). Linux rxe accepted
 * packets from source port 4791 in that measurement.
 *
 * <p><b>Buffers.</b> Received datagrams land in pooled direct buffers; their content is handed to
 * {@link RxeDevice#rcv}, which owns it from then on (releases it exactly once). Outgoing packets are released
 * by Netty after the write (or on a failed write); a packet for an address without a channel is released here.
 *
 * Sends are queued per channel and written in batches by the event loop ({@link Tx}).
 *
 * <p>{@link #close()} closes all channels and shuts the event loop down, waiting for its thread to end.
 */
public final class NettyWire implements RxeWire, AutoCloseable {
    public static final int ROCE_PORT = 4791;
    /** Prefix of the event loop threads' names. */
    public static final String THREAD_PREFIX = "rxe-net";
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");

    /** Which Netty transport to use. */
    public enum Transport {
        /** epoll if available, else NIO */
        AUTO, NIO, EPOLL
    }

    /**
     * Batch sends per event loop task (default); {@code -Djrdma.rxe.net.batch=false}: one writeAndFlush per
     * packet. On the 2-core build host both measured 8..16 MiB/s for RC WRITE, batching slightly ahead.
     */
    static final boolean BATCH = !"false".equals(System.getProperty("jrdma.rxe.net.batch"));
    /** {@code -Djrdma.rxe.net.direct=false}: every packet through the event loop. */
    static final boolean DIRECT = !"false".equals(System.getProperty("jrdma.rxe.net.direct"));
    /**
     * {@code -Djrdma.rxe.net.busyPoll=true} (epoll only): the event loop spins in {@code epoll_wait} with a
     * zero timeout instead of sleeping in it, as Linux's {@code net.core.busy_poll} does for a socket: a
     * packet is picked up without a wakeup, at the price of one core per device kept busy. Off by default.
     */
    static final boolean BUSY_POLL = Boolean.getBoolean("jrdma.rxe.net.busyPoll");
    /** The largest datagram read or sent: a 9000-byte jumbo frame's payload and then some. */
    static final int MAX_DATAGRAM = 9216 + 256;
    /**
     * epoll: a thread per wire reads the sockets ({@link RecvLoop}) instead of the event loop;
     * {@code -Djrdma.rxe.net.recvThread=false}: the event loop reads (recvmmsg batches).
     */
    static final boolean RECV_THREAD = !"false".equals(System.getProperty("jrdma.rxe.net.recvThread"));
    /**
     * Datagrams one recvmmsg(2) reads into one buffer (epoll; {@code -Djrdma.rxe.net.recvmmsg=1}: one recvmsg
     * per datagram). A round trip's ACK and answer arrive together; one read takes both.
     */
    static final int RECV_BATCH = Integer.getInteger("jrdma.rxe.net.recvmmsg", 8);
    /**
     * UDP GSO (epoll): what one pass of a QP's roles sends is held back ({@link #cork}) and leaves at the end of
     * the pass ({@link #uncork}) by one sendmmsg(2), each run of equal-size packets to one destination as one
     * datagram with {@code UDP_SEGMENT} (the kernel cuts it into exactly those packets again).
     * {@code -Djrdma.rxe.net.gso=false}: one sendto(2) per packet.
     */
    static final boolean GSO = !"false".equals(System.getProperty("jrdma.rxe.net.gso"));
    /**
     * UDP GRO (epoll, receive thread): the sockets get {@code UDP_GRO} and the receive thread reads with
     * recvmsg(2), so a GSO datagram (or a run the kernel's GRO merged) arrives in one read with its segment
     * size, and is cut into its packets here. {@code -Djrdma.rxe.net.gro=false}: one datagram per recvfrom(2).
     */
    static final boolean GRO = !"false".equals(System.getProperty("jrdma.rxe.net.gro"));
    /**
     * Receive thread, GSO, {@code -Djrdma.rxe.net.acksWithPass=true}: a pass of a QP's roles that sends while a
     * datagram is handled takes the ACKs held so far along in its sendmmsg, after its own packets (a round trip's
     * answer and the ACK of the request it answers leave by one syscall). Off by default: the chained RC pingpong
     * was slower with it (hw-rxe/NOTES.md, "Held ACKs by sendmmsg"); the ACKs then wait for the end of the
     * datagram. Not final so that a test can turn it on.
     */
    static boolean acksWithPass = Boolean.getBoolean("jrdma.rxe.net.acksWithPass");
    private static final ThreadLocal<java.nio.ByteBuffer> DIRECT_BUF =
            ThreadLocal.withInitial(() -> java.nio.ByteBuffer.allocateDirect(MAX_DATAGRAM));
    private static final java.lang.reflect.Field EPOLL_SOCKET = epollSocketField();

    private static java.lang.reflect.Field epollSocketField() {
        try {
            // AbstractEpollChannel.socket (package-private class, protected final field)
            for (Class<?> c = EpollDatagramChannel.class; c != null; c = c.getSuperclass()) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (f.getName().equals("socket") && io.netty.channel.unix.Socket.class.isAssignableFrom(f.getType())) {
                        f.setAccessible(true);
                        return f;
                    }
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // below
        }
        return null; // another Netty: the event loop path only
    }

    private static io.netty.channel.unix.Socket socketOf(Channel ch) {
        if (EPOLL_SOCKET == null || !(ch instanceof EpollDatagramChannel)) {
            return null;
        }
        try {
            return (io.netty.channel.unix.Socket) EPOLL_SOCKET.get(ch);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private final boolean epoll;
    private final int port;
    private final EventLoopGroup group;
    /** Reads the sockets (epoll; null: the event loop reads). */
    private final RecvLoop recvLoop;
    private final Map<InetAddress, Tx> channels = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Whether sends may be corked and leave as GSO datagrams (epoll, the natives found, not switched off). */
    private final boolean gso;
    /**
     * Whether packets may leave by Netty's sendmmsg from the sending thread ({@link EpollDgram.Batch}: epoll, the
     * natives found, direct sends on). Also without GSO: the receive thread's held ACKs leave by one sendmmsg per
     * channel, and a single direct send is a sendmmsg of one, which allocates nothing per datagram (Netty's
     * {@code sendToAddress} copies the address into new arrays each time).
     */
    private final boolean mmsg;
    /** Whether the receive thread reads with UDP_GRO. */
    private final boolean gro;
    /** What each thread holds back between {@link #cork} and {@link #uncork}. */
    private final ThreadLocal<Cork> corks = ThreadLocal.withInitial(Cork::new);
    public final AtomicLong sent = new AtomicLong();
    /** GSO datagrams sent (each several packets; {@link #sent} counts packets). */
    public final AtomicLong gsoDatagrams = new AtomicLong();
    /** sendmmsg(2) calls that sent something (a cork's or the held ACKs' datagrams, or a direct send of one). */
    public final AtomicLong sendmmsgs = new AtomicLong();
    /** Packets that left inside GSO datagrams. */
    public final AtomicLong gsoSegments = new AtomicLong();
    /** Packets that left with their payload gathered from a memory region (not copied; see {@link #sendGathered}). */
    public final AtomicLong gatheredPackets = new AtomicLong();
    /** Reads that returned a coalesced (GRO) buffer of several packets. */
    public final AtomicLong groReads = new AtomicLong();
    /** Times the receive thread read into its bounce buffer, every kept buffer being in use (packets copied out). */
    public final AtomicLong groBounced = new AtomicLong();
    public final AtomicLong received = new AtomicLong();
    public final AtomicLong unroutable = new AtomicLong();
    public final AtomicLong sendErrors = new AtomicLong();

    public NettyWire() {
        this(Transport.AUTO, ROCE_PORT, "");
    }

    /**
     * @param transport NIO, EPOLL (fails if epoll is unavailable) or AUTO
     * @param port the UDP port to bind and send to (4791; tests may use another)
     * @param name a suffix for the thread names
     */
    public NettyWire(Transport transport, int port, String name) {
        this(transport, port, name, RECV_THREAD);
    }

    /** @param recvThread epoll: a thread of its own reads the sockets (else the event loop does) */
    NettyWire(Transport transport, int port, String name, boolean recvThread) {
        this(transport, port, name, recvThread, GSO, GRO);
    }

    /**
     * @param gso send runs of equal-size packets as UDP GSO datagrams where possible
     * @param gro read with UDP_GRO where possible (needs the receive thread)
     */
    NettyWire(Transport transport, int port, String name, boolean recvThread, boolean gso, boolean gro) {
        boolean epollOk = transport != Transport.NIO && epollAvailable();
        if (transport == Transport.EPOLL && !epollOk) {
            throw new IllegalStateException("epoll is not available: " + Epoll.unavailabilityCause());
        }
        this.epoll = epollOk;
        this.port = port;
        recvThread &= epoll && EPOLL_SOCKET != null && RecvLoop.available();
        // with a receive thread, that thread busy-polls; the event loop only sends what could not go at once
        IoHandlerFactory f = !epoll ? NioIoHandler.newFactory()
                : BUSY_POLL && !recvThread ? EpollIoHandler.newFactory(0, () -> (selectNow, hasTasks) ->
                        hasTasks ? selectNow.get() : io.netty.channel.SelectStrategy.BUSY_WAIT)
                : EpollIoHandler.newFactory();
        String threads = THREAD_PREFIX + (name.isEmpty() ? "" : "-" + name);
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(threads, true), f);
        this.mmsg = epoll && EPOLL_SOCKET != null && DIRECT && EpollDgram.AVAILABLE;
        this.gso = gso && mmsg;
        this.gro = gro && recvThread && EpollDgram.AVAILABLE;
        this.recvLoop = recvThread ? new RecvLoop(this, threads + "-rx", BUSY_POLL) : null;
    }

    /** Whether this wire sends runs of packets as UDP GSO datagrams. */
    public boolean isGso() {
        return gso;
    }

    /** Whether this wire's receive thread reads coalesced (UDP_GRO) buffers. */
    public boolean isGro() {
        return gro;
    }

    /** True if a thread of its own reads this wire's sockets (else its event loop does). */
    public boolean hasRecvThread() {
        return recvLoop != null;
    }

    private static boolean epollAvailable() {
        try {
            return Epoll.isAvailable();
        } catch (Throwable t) { // the classes or the native fragment missing
            return false;
        }
    }

    /** True if this wire runs on native epoll. */
    public boolean isEpoll() {
        return epoll;
    }

    /** Where a channel's datagrams go: {@link RxeDevice#rcv}, which owns the buffer from then on. */
    @FunctionalInterface
    interface Receiver {
        void rcv(ByteBuf udpPayload, InetAddress src, InetAddress dst, int srcPort);
    }

    /** Binds one channel per address of {@code dev}; on failure nothing of {@code dev} stays bound. */
    public void attach(RxeDevice dev) {
        attach(dev.addresses(), dev::rcv);
    }

    /** Binds one channel per address, each handing what it reads to {@code rx} (tests: a recorder). */
    void attach(List<InetAddress> addrs, Receiver rx) {
        try {
            for (InetAddress a : addrs) {
                bind(rx, a);
            }
        } catch (RuntimeException e) {
            detach(addrs);
            throw e;
        }
    }

    private void bind(Receiver rx, InetAddress a) {
        if (closed) {
            throw new IllegalStateException("wire closed");
        }
        if (channels.containsKey(a)) {
            throw new IllegalStateException(a.getHostAddress() + " is already bound by this wire");
        }
        Bootstrap b = new Bootstrap().group(group)
                .option(ChannelOption.ALLOCATOR, PacketPool.ALLOC)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(
                        epoll && RECV_BATCH > 1 ? MAX_DATAGRAM * RECV_BATCH : MAX_DATAGRAM))
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                .option(ChannelOption.AUTO_READ, recvLoop == null) // the receive thread reads
                .handler(new Rx(rx));
        InternetProtocolFamily fam = a instanceof Inet6Address ? InternetProtocolFamily.IPv6
                : InternetProtocolFamily.IPv4;
        if (epoll) {
            b.channelFactory(() -> new EpollDatagramChannel(fam));
            if (RECV_BATCH > 1) {
                b.option(io.netty.channel.epoll.EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_DATAGRAM);
            }
        } else {
            b.channelFactory(() -> new NioDatagramChannel(fam));
        }
        Channel ch;
        try {
            ch = b.bind(new InetSocketAddress(a, port)).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new IllegalStateException("rxe: cannot bind UDP " + fmt(a) + ":" + port + ": " + e, e);
        }
        if (a instanceof java.net.Inet4Address && !dontFragment(ch)) {
            LOG.log(System.Logger.Level.WARNING, () -> "rxe: could not set IP_PMTUDISC_DO on " + ch
                    + ": Linux gives its IPv4 packets a non-zero IP ID, and a Linux rxe peer drops them (ICRC)");
        }
        Tx tx = new Tx(ch);
        if (recvLoop != null) {
            if (tx.socket != null) {
                boolean g = gro && groOn(ch);
                recvLoop.add(new RecvLoop.Source(tx.socket, a, rx, g, g && EpollDgram.ipv6(tx.socket)));
            } else {
                ch.config().setAutoRead(true);
            }
        }
        channels.put(a, tx);
        LOG.log(System.Logger.Level.DEBUG, () -> "rxe: bound " + ch);
    }

    /** Sets UDP_GRO on an epoll channel; whether it is on. */
    private static boolean groOn(Channel ch) {
        try {
            ch.config().setOption(io.netty.channel.epoll.EpollChannelOption.UDP_GRO, true);
            return Boolean.TRUE.equals(ch.config().getOption(io.netty.channel.epoll.EpollChannelOption.UDP_GRO));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: no UDP_GRO on " + ch + ": " + e);
            return false;
        }
    }

    /** Linux {@code IPPROTO_IP}, {@code IP_MTU_DISCOVER}, {@code IP_PMTUDISC_DO}. */
    private static final int IPPROTO_IP = 0;
    private static final int IP_MTU_DISCOVER = 10;
    static final int IP_PMTUDISC_DO = 2;
    private static final io.netty.channel.unix.IntegerUnixChannelOption MTU_DISCOVER =
            new io.netty.channel.unix.IntegerUnixChannelOption("IP_MTU_DISCOVER", IPPROTO_IP, IP_MTU_DISCOVER);

    /**
     * Sets {@code IP_MTU_DISCOVER = IP_PMTUDISC_DO} on an IPv4 channel, so that Linux sends its datagrams
     * (unconnected) with IP ID 0, the ID the ICRC is computed with (measured against Linux 6.1, see
     * hw-rxe/NOTES.md; the default PMTUDISC_WANT gives a hashed ID). epoll: the raw socket option; NIO:
     * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT} (JDK 19+, sets PMTUDISC_DO on Linux), if visible.
     *
     * @return whether it is set
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static boolean dontFragment(Channel ch) {
        try {
            if (ch instanceof EpollDatagramChannel) {
                ch.config().setOption(MTU_DISCOVER, IP_PMTUDISC_DO);
                Integer v = ch.config().getOption(MTU_DISCOVER);
                return v != null && v == IP_PMTUDISC_DO;
            }
            Class<?> c = Class.forName("jdk.net.ExtendedSocketOptions");
            java.net.SocketOption opt = (java.net.SocketOption) c.getField("IP_DONTFRAGMENT").get(null);
            io.netty.channel.ChannelOption o = io.netty.channel.socket.nio.NioChannelOption.of(opt);
            return ch.config().setOption(o, Boolean.TRUE) && Boolean.TRUE.equals(ch.config().getOption(o));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * Datagrams the kernel dropped at this wire's sockets before the event loop read them (receive buffer
     * full, or no memory): the {@code drops} column of {@code /proc/net/udp} and {@code /proc/net/udp6} for the
     * bound addresses (Linux; the host-wide UDP RcvbufErrors counts every socket). RoCE sees such a drop
     * as a PSN gap: a sequence NAK, or the retransmit timer if nothing follows it. -1 if unreadable.
     */
    public long socketDrops() {
        // each table read once, however many of the wire's addresses it holds
        java.util.Map<String, java.util.Set<String>> keys = new java.util.HashMap<>();
        for (InetAddress a : channels.keySet()) {
            keys.computeIfAbsent(a instanceof Inet6Address ? "/proc/net/udp6" : "/proc/net/udp",
                    f -> new java.util.HashSet<>()).add(procAddress(a) + ":" + String.format("%04X", port));
        }
        long sum = 0;
        for (java.util.Map.Entry<String, java.util.Set<String>> e : keys.entrySet()) {
            try {
                for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(e.getKey()))) {
                    String[] c = line.trim().split("\\s+");
                    if (c.length > 12 && e.getValue().contains(c[1])) {
                        sum += Long.parseLong(c[12]);
                    }
                }
            } catch (java.io.IOException | RuntimeException x) {
                return -1;
            }
        }
        return sum;
    }

    /** An address as /proc/net/udp{,6} prints it: 32-bit words in host byte order, in hex. */
    static String procAddress(InetAddress a) {
        byte[] b = a.getAddress();
        boolean le = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
        StringBuilder s = new StringBuilder();
        for (int w = 0; w < b.length; w += 4) {
            for (int i = 0; i < 4; i++) {
                s.append(String.format("%02X", b[w + (le ? 3 - i : i)] & 0xff));
            }
        }
        return s.toString();
    }

    /** Whether the channel bound to {@code a} sends IPv4 with IP_PMTUDISC_DO (ID 0). */
    public boolean dontFragment(InetAddress a) {
        Tx tx = channels.get(a);
        return tx != null && dontFragment(tx.ch);
    }

    private static String fmt(InetAddress a) {
        return a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
    }

    /** Closes the channels of {@code dev}'s addresses. */
    public void detach(RxeDevice dev) {
        detach(dev.addresses());
    }

    void detach(List<InetAddress> addrs) {
        for (InetAddress a : addrs) {
            Tx tx = channels.remove(a);
            if (tx != null) {
                unread(tx);
                tx.close();
            }
        }
    }

    /** Stops the receive thread reading {@code tx}'s socket, so that it may be closed. */
    private void unread(Tx tx) {
        if (recvLoop != null && tx.socket != null) {
            recvLoop.remove(tx.socket);
        }
    }

    @Override
    public int udpSourcePort(int requested) {
        return port;
    }

    /** {@code dst}, with {@code src}'s scope if it is link-local without one. */
    private static InetAddress scoped(InetAddress src, InetAddress dst) {
        if (dst instanceof Inet6Address d6 && d6.isLinkLocalAddress() && d6.getScopeId() == 0
                && src instanceof Inet6Address s6 && s6.getScopeId() != 0) {
            try {
                return Inet6Address.getByAddress(null, d6.getAddress(), s6.getScopeId());
            } catch (UnknownHostException e) {
                // keep dst
            }
        }
        return dst;
    }

    /** Corked (GSO) sends gather: a gathered packet's payload goes from the memory region into the sendmmsg iovecs. */
    @Override
    public boolean gathers() {
        return gso;
    }

    /**
     * Held in the cork like any packet, its payload an iovec of its own at the uncork (no copy). Not corked on this
     * thread, or whenever a packet cannot leave by this thread's sendmmsg (the event loop's queue, one packet per
     * datagram after a GSO failure), the parts are joined into one packet first: nothing of the memory region is
     * referenced once the cork is flushed.
     */
    @Override
    public void sendGathered(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf head, int hdrLen,
            java.nio.ByteBuffer payload, int payloadIndex, int payloadLen) {
        Cork c = gso ? corks.get() : null;
        if (c == null || c.depth == 0) {
            send(from, src, dst, srcPort, org.jrdma.hw.rxe.RxeGather.join(head, hdrLen, payload, payloadIndex, payloadLen));
            return;
        }
        Tx tx = channels.get(src);
        if (tx == null || closed) {
            unroutable.incrementAndGet();
            head.release();
            return;
        }
        sent.incrementAndGet();
        c.held.add(tx, head, scoped(src, dst), hdrLen, payload, payloadIndex, payloadLen);
        if (c.held.size() >= Cork.LIMIT) {
            c.flush();
        }
    }

    @Override
    public void send(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        Tx tx = channels.get(src);
        if (tx == null || closed) {
            unroutable.incrementAndGet();
            packet.release();
            return;
        }
        InetAddress to = scoped(src, dst);
        sent.incrementAndGet();
        if (recvLoop != null && packet.getByte(packet.readerIndex()) == RC_ACKNOWLEDGE && recvLoop.inLoop()) {
            recvLoop.hold(tx, packet, to); // sent once the datagram in hand is handled: see RecvLoop
            return;
        }
        if (gso) {
            Cork c = corks.get();
            if (c.depth > 0) {
                c.held.add(tx, packet, to);
                if (c.held.size() >= Cork.LIMIT) {
                    c.flush();
                }
                return;
            }
        }
        tx.send(packet, to);
    }

    /**
     * Holds back what this thread sends until the matching {@link #uncork}, where it leaves in as few syscalls
     * as possible (GSO). The device corks around each pass of a QP's roles, with the QP's exec lock held, so
     * no other thread sends for that QP before the pass's packets are out. Nests; every uncork sends all.
     */
    @Override
    public void cork() {
        if (gso) {
            corks.get().depth++;
        }
    }

    @Override
    public void uncork() {
        if (gso) {
            Cork c = corks.get();
            try {
                if (acksWithPass && c.held.size() > 0 && recvLoop != null && recvLoop.inLoop()) {
                    // the pass sends something (a handler's answer): the ACKs the receive thread holds go in the
                    // same sendmmsg, after it. The pass's packets still leave before the QP's exec lock is let go;
                    // only ACKs move, and those may arrive late (see RecvLoop)
                    take(recvLoop.held(), c);
                }
                c.flush();
            } finally {
                c.depth--;
            }
        }
    }

    /** Appends {@code from}'s packets (held by the receive thread, each sent by one of this wire's Tx) to the cork. */
    private static void take(HeldPackets<Sender> from, Cork c) {
        for (int i = 0; i < from.size(); i++) {
            c.held.add((Tx) from.sender(i), from.packet(i), from.to(i), true);
        }
        from.clear();
    }

    /**
     * Sends what the receive thread held back ({@link RecvLoop}) and empties {@code held}: as a cork's packets
     * leave, one sendmmsg per channel with each channel's packets in their order (runs of equal-size ACKs to one
     * peer as GSO datagrams when GSO is on), the event loop for what the kernel does not take; without sendmmsg
     * one send each.
     */
    void sendHeld(HeldPackets<Sender> held) {
        if (held.size() == 0) {
            return;
        }
        if (!mmsg) {
            for (int i = 0; i < held.size(); i++) {
                held.sender(i).send(held.packet(i), held.to(i));
            }
            held.clear();
            return;
        }
        Cork c = corks.get();
        take(held, c);
        c.flush();
    }

    /**
     * One thread's held-back packets, in the order sent, and its scratch for sending them: the datagrams of one
     * sendmmsg ({@link EpollDgram.Batch}) and, per datagram, which packets it holds.
     */
    private final class Cork {
        /** Packets held before a flush even inside a pass. */
        static final int LIMIT = 512;
        int depth;
        /** A pass's packets, held without an object each. */
        final HeldPackets<Tx> held = new HeldPackets<>(64);
        private EpollDgram.Batch batch;
        private final org.jrdma.hw.rxe.wire.IcrcIpv4Span.IdDeltas deltas = new org.jrdma.hw.rxe.wire.IcrcIpv4Span.IdDeltas();
        /** Per datagram of the batch: first packet (index into run), packet count, segment size (0: one packet). */
        final int[] first = new int[EpollDgram.MAX_MSGS];
        final int[] count = new int[EpollDgram.MAX_MSGS];
        final int[] seg = new int[EpollDgram.MAX_MSGS];
        /** One channel's packets of {@link #held}, in order, while they are sent. */
        final HeldPackets<Tx> run = new HeldPackets<>(64);
        /** A destination as Netty's sendmmsg wants it (cached per thread: {@link EpollDgram.Batch#address}). */
        InetSocketAddress socketAddress(InetAddress to, int port) {
            return batch().address(to, port);
        }

        EpollDgram.Batch batch() {
            if (batch == null) {
                batch = EpollDgram.batch();
            }
            return batch;
        }

        int delta(int id, int length) {
            return deltas.of(id, length);
        }

        /** Sends everything held, each channel's packets in their order. */
        void flush() {
            int total = held.size();
            try {
                for (int i = 0; i < total; i++) {
                    Tx tx = held.sender(i);
                    if (tx == null) {
                        continue;
                    }
                    for (int j = i; j < total; j++) {
                        if (held.sender(j) == tx) {
                            run.move(held, j);
                        }
                    }
                    try {
                        tx.sendRun(run, this);
                    } finally {
                        run.clear();
                    }
                }
            } finally {
                held.clear();
            }
        }
    }

    /** BTH opcode of an RC ACK (or NAK): the packets the receive thread holds back. */
    private static final byte RC_ACKNOWLEDGE = 0x11;

    /** A channel's send side, as the receive thread sends what it held back. */
    interface Sender {
        void send(ByteBuf packet, InetAddress to);
    }

    /**
     * The send side of one channel: packets from any thread are queued and written by one task on the event
     * loop, which flushes once per batch (one wakeup per burst instead of per packet; epoll then sends the
     * batch with sendmmsg).
     */
    private final class Tx implements Runnable, Sender {
        final Channel ch;
        /** The epoll channel's socket (null: NIO, or not reachable). */
        final io.netty.channel.unix.Socket socket;
        private final java.util.Queue<DatagramPacket> q = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicBoolean scheduled = new java.util.concurrent.atomic.AtomicBoolean();
        private volatile boolean txClosed;

        /** The epoll channel's socket, for sendto(2) from any thread (null: NIO, or not reachable). */
        private final io.netty.channel.unix.Socket direct;

        Tx(Channel ch) {
            this.ch = ch;
            this.socket = socketOf(ch);
            this.direct = DIRECT ? socket : null;
            this.ipv4 = !(((InetSocketAddress) ch.localAddress()).getAddress() instanceof Inet6Address);
            this.ipv6 = socket != null && EpollDgram.AVAILABLE && EpollDgram.ipv6(socket);
        }

        /** IPv4 channel: GSO segments get counting IP IDs, which the ICRC covers. */
        private final boolean ipv4;
        /** The socket is AF_INET6 (for Netty's sendmmsg). */
        private final boolean ipv6;

        /**
         * Sends {@code packet} to {@code to}: written inside the event loop's read batch, or by sendto(2) from
         * this thread, or queued for the event loop. The DatagramPacket (and its address) that Netty's write
         * path needs is only made for the latter two; the direct path allocates nothing.
         */
        @Override
        public void send(ByteBuf packet, InetAddress to) {
            if (!inReadBatch() && direct != null && loopIdle() && sendDirect(packet, to)) {
                return;
            }
            offer(new DatagramPacket(packet, new InetSocketAddress(to, port)));
        }

        /** On the event loop inside a read batch, with nothing of this channel queued before. */
        private boolean inReadBatch() {
            return reading && q.isEmpty() && !scheduled.get() && ch.eventLoop().inEventLoop();
        }

        /**
         * sendto(2) on the channel's socket from the calling thread (a posting thread, the engine): no
         * hand-off to the event loop, which on an 8-byte round trip costs more than the send itself. The
         * socket is the channel's own (bound to 4791, IP_PMTUDISC_DO), so the packet is the same on the
         * wire. Only when nothing is queued, so packets keep their order; a full socket buffer (EAGAIN)
         * or an error falls back to the event loop, which waits for writability and reports errors.
         */
        private boolean sendDirect(ByteBuf b, InetAddress to) {
            int len = b.readableBytes();
            if (txClosed) {
                return false;
            }
            try {
                int n;
                if (b.hasMemoryAddress()) { // the device's packets: pooled direct, sent from where they are
                    EpollDgram.Batch bt = mmsg ? EpollDgram.batch() : null;
                    if (bt != null && bt.idle()) {
                        return sendOne(bt, b, to);
                    }
                    // no sendmmsg, or this thread's batch is being filled (not by the current callers; kept safe):
                    // sendto, which allocates the address arrays
                    n = direct.sendToAddress(b.memoryAddress(), b.readerIndex(), b.writerIndex(), to, port);
                } else {
                    java.nio.ByteBuffer buf = DIRECT_BUF.get();
                    if (len > buf.capacity()) {
                        return false;
                    }
                    buf.clear();
                    // read through a leak-tracking wrapper's buffer: a paranoid leak detector records a stack
                    // trace per access; the packet is still released through the wrapper below
                    ByteBuf raw = b.unwrap() != null ? b.unwrap() : b;
                    raw.getBytes(b.readerIndex(), buf.limit(len));
                    n = direct.sendTo(buf, 0, len, to, port);
                }
                if (n != len) {
                    return false;
                }
            } catch (java.io.IOException | RuntimeException e) {
                return false;
            }
            b.release();
            return true;
        }

        /**
         * One datagram by sendmmsg through this thread's idle batch: its slot keeps the recipient as long as the
         * destination stays the same, so nothing is allocated per datagram. False (nothing sent, {@code b} still
         * the caller's) on EAGAIN or an error, as for sendto.
         */
        private boolean sendOne(EpollDgram.Batch bt, ByteBuf b, InetAddress to) {
            try {
                bt.begin(bt.address(to, port), 0);
                bt.add(b);
                bt.end();
                if (bt.send(socket, ipv6) != 1) {
                    return false;
                }
                sendmmsgs.incrementAndGet();
            } catch (java.io.IOException | RuntimeException e) {
                return false;
            } finally {
                bt.clear();
            }
            b.release();
            return true;
        }

        /**
         * The event loop's ways: written in its read batch, or queued for {@link #run}. {@link #send} has
         * tried sendto(2) already; a SegmentedDatagramPacket only goes through the event loop.
         */
        private void offer(DatagramPacket p) {
            if (inReadBatch()) {
                // answering from inside a read (an ACK, a reply posted by a completion handler): written
                // now, flushed once when the read batch ends (Rx.channelReadComplete), with sendmmsg
                // when there is more than one
                ch.write(p, ch.voidPromise());
                if (!dirty.contains(this)) {
                    dirty.add(this);
                }
                return;
            }
            if (!BATCH) {
                ch.writeAndFlush(p, ch.voidPromise());
                return;
            }
            q.offer(p);
            if (txClosed) {
                drop();
                return;
            }
            if (scheduled.compareAndSet(false, true)) {
                try {
                    ch.eventLoop().execute(this);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    drop();
                }
            }
        }

        /**
         * Nothing of this channel is on its way through the event loop: not queued, not being drained by
         * {@link #run}, and not written to the channel but still unsent (a write made inside a read batch is
         * flushed only when the batch ends; a flush that met a full socket buffer waits for writability).
         * Only then may a packet take the {@link #sendDirect} path: packets of one QP must reach the peer in
         * the order they were sent, and one that overtakes the earlier packets of its QP is a PSN gap to the
         * responder (a sequence NAK, then go-back-N over the whole window). The outbound buffer's pending
         * byte count is volatile; it grows in {@code ch.write} on the event loop before that thread lets go
         * of the QP whose packet it writes, and shrinks only once the kernel has taken the datagram.
         */
        private boolean loopIdle() {
            if (!q.isEmpty() || scheduled.get()) {
                return false;
            }
            io.netty.channel.ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
            return out == null || out.totalPendingWriteBytes() == 0;
        }

        @Override
        public void run() {
            // scheduled stays set until the queue is drained and flushed: no sendDirect slips in between a
            // packet polled here and its write
            do {
                if (txClosed || !ch.isActive()) {
                    drop();
                    scheduled.set(false);
                    return;
                }
                DatagramPacket p;
                int n = 0;
                while ((p = q.poll()) != null) {
                    ch.write(p, ch.voidPromise()); // failures: released by Netty, reported to exceptionCaught
                    if (++n == 256) {
                        ch.flush();
                        n = 0;
                    }
                }
                if (n > 0) {
                    ch.flush();
                }
                scheduled.set(false);
            } while (!q.isEmpty() && scheduled.compareAndSet(false, true));
        }

        /** Cleared when a GSO datagram failed on this channel: its packets leave one by one from then on. */
        private volatile boolean gsoOk = true;

        /**
         * Sends {@code run[0..n)} (this channel's packets of one cork, in order): runs of equal-size packets to
         * one destination (the last of a run may be shorter) become one GSO datagram each, at most
         * {@link EpollDgram#MAX_SEGMENTS} and {@link EpollDgram#MAX_PAYLOAD} bytes; all of it leaves by sendmmsg
         * from this thread when nothing of the channel is on its way through the event loop, else (and whatever
         * the kernel did not take) through the event loop queue, in order, GSO datagrams as
         * {@link io.netty.channel.unix.SegmentedDatagramPacket}.
         *
         * <p>IPv4: the kernel gives the segments of a datagram sent with IP ID 0 the IDs 0, 1, 2, ... and the
         * ICRC covers the ID, so segment k's ICRC is changed to the one for ID k
         * ({@link org.jrdma.hw.rxe.wire.IcrcIpv4Span#idDelta}): a Linux rxe peer checks it exactly.
         */
        void sendRun(HeldPackets<Tx> run, Cork c) {
            int n = run.size();
            if (!mmsg || socket == null || txClosed || n == 1 && !run.gathered(0)) {
                // one packet (a round trip's): as without a cork (a sendmmsg of one, see sendDirect)
                for (int i = 0; i < n; i++) {
                    send(run.whole(i), run.to(i));
                }
                return;
            }
            // without GSO (switched off, or refused on this channel) one packet per datagram, still one sendmmsg
            boolean segments = gso && gsoOk;
            EpollDgram.Batch bt = c.batch();
            int i = 0;
            while (i < n) {
                ByteBuf b = run.packet(i);
                if (!b.hasMemoryAddress()) { // not a device packet (tests): after what is batched, on its own
                    sendBatch(bt, run, c);
                    send(run.whole(i), run.to(i));
                    i++;
                    continue;
                }
                int len = run.length(i);
                InetAddress to = run.to(i);
                int max = segments ? Math.min(EpollDgram.MAX_SEGMENTS, EpollDgram.MAX_PAYLOAD / Math.max(len, 1)) : 1;
                int k = 1;
                // held ACKs taken along by a pass (acksWithPass) never share a GSO datagram with its packets: the
                // answer and the ACK as one GSO datagram made the chained RC pingpong slower still (median 39-45 us
                // against 30-34). A run of held ACKs to one peer is still one GSO datagram
                boolean ack = run.ack(i);
                while (i + k < n && k < max) {
                    int ql = run.length(i + k);
                    ByteBuf q = run.packet(i + k);
                    if (ql > len || ql == 0 || !q.hasMemoryAddress() || !run.to(i + k).equals(to)
                            || run.ack(i + k) != ack) {
                        break;
                    }
                    k++;
                    if (ql < len) {
                        break; // a shorter packet ends a GSO datagram
                    }
                }
                if (!bt.begin(c.socketAddress(to, port), k > 1 ? len : 0)) {
                    sendBatch(bt, run, c);
                    continue;
                }
                for (int j = 0; j < k; j++) {
                    ByteBuf q = run.packet(i + j);
                    if (j > 0 && ipv4) {
                        patchId(q, run.length(i + j), j, c);
                    }
                    if (run.gathered(i + j)) { // headers, the payload where it lies, pad and ICRC
                        int ri = q.readerIndex();
                        int h = run.hdrLen(i + j);
                        bt.add(q, ri, h);
                        bt.add(run.payloadAddress(i + j), run.payloadLen(i + j));
                        bt.add(q, ri + h, q.readableBytes() - h);
                    } else {
                        bt.add(q);
                    }
                }
                bt.end();
                int m = bt.count() - 1;
                c.first[m] = i;
                c.count[m] = k;
                c.seg[m] = k > 1 ? len : 0;
                i += k;
            }
            sendBatch(bt, run, c);
        }

        /**
         * Changes the ICRC of a packet ({@code len} bytes, of which {@code q} holds the last 4) that leaves as
         * segment {@code id} of a GSO datagram (IP ID = id).
         */
        private void patchId(ByteBuf q, int len, int id, Cork c) {
            int ri = q.readerIndex();
            int in = q.readableBytes();
            org.jrdma.hw.rxe.wire.Icrc.store(q, ri, in,
                    org.jrdma.hw.rxe.wire.Icrc.stored(q, ri, in) ^ c.delta(id, len));
        }

        /**
         * Sends the batch's datagrams (sendmmsg, or the event loop for what cannot go at once) and clears it. What
         * does not leave by this sendmmsg is joined into whole packets now ({@link HeldPackets#whole}).
         */
        private void sendBatch(EpollDgram.Batch bt, HeldPackets<Tx> run, Cork c) {
            int m = bt.count();
            if (m == 0) {
                return;
            }
            int done = 0;
            boolean inLoopRead = reading && ch.eventLoop().inEventLoop();
            if (!inLoopRead && !txClosed && loopIdle()) {
                try {
                    done = bt.send(socket, ipv6);
                    if (done > 0) {
                        sendmmsgs.incrementAndGet();
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    if (c.seg[0] > 0) { // the GSO datagram itself was refused: no GSO on this channel
                        gsoOk = false;
                        LOG.log(System.Logger.Level.WARNING, () -> "rxe: UDP GSO failed on " + ch + " (" + e
                                + "); sending one packet per datagram");
                    }
                    done = 0;
                }
            }
            bt.clear();
            for (int d = 0; d < m; d++) {
                int f = c.first[d];
                int k = c.count[d];
                if (d < done) {
                    int g = 0;
                    for (int j = 0; j < k; j++) {
                        g += run.gathered(f + j) ? 1 : 0;
                        run.packet(f + j).release();
                        run.take(f + j);
                    }
                    if (k > 1) {
                        gsoDatagrams.incrementAndGet();
                        gsoSegments.addAndGet(k);
                    }
                    if (g > 0) {
                        gatheredPackets.addAndGet(g);
                    }
                } else if (k == 1) {
                    send(run.whole(f), run.to(f));
                    run.take(f);
                } else if (!gsoOk) { // back to ID 0 and one packet each
                    for (int j = 0; j < k; j++) {
                        if (j > 0 && ipv4) {
                            patchId(run.packet(f + j), run.length(f + j), j, c);
                        }
                        send(run.whole(f + j), run.to(f + j));
                        run.take(f + j);
                    }
                } else {
                    InetAddress to = run.to(f);
                    io.netty.buffer.CompositeByteBuf all = PacketPool.ALLOC.compositeDirectBuffer(k);
                    for (int j = 0; j < k; j++) {
                        all.addComponent(true, run.whole(f + j));
                        run.take(f + j);
                    }
                    offer(new io.netty.channel.unix.SegmentedDatagramPacket(all, c.seg[d],
                            new InetSocketAddress(to, port)));
                    gsoDatagrams.incrementAndGet();
                    gsoSegments.addAndGet(k);
                }
            }
        }

        /** Releases whatever is queued. */
        void drop() {
            DatagramPacket p;
            while ((p = q.poll()) != null) {
                unroutable.incrementAndGet();
                p.release();
            }
        }

        void close() {
            txClosed = true;
            ch.close().syncUninterruptibly();
            drop();
        }
    }

    /**
     * True while this wire's event loop runs a read batch (only that thread reads or writes it, and the
     * loop group has one thread). Sends made then are written unflushed to {@link #dirty}.
     */
    private boolean reading;
    private final java.util.ArrayList<Tx> dirty = new java.util.ArrayList<>();

    /** Ends a read batch: flushes what its handling wrote. */
    private void readComplete() {
        reading = false;
        for (int i = 0; i < dirty.size(); i++) {
            dirty.get(i).ch.flush();
        }
        dirty.clear();
    }

    /** Hands each datagram's content to the device (which owns it from then on). */
    private final class Rx extends ChannelInboundHandlerAdapter {
        private final Receiver rx;

        Rx(Receiver rx) {
            this.rx = rx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof DatagramPacket p)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            received.incrementAndGet();
            reading = true;
            InetSocketAddress s = p.sender();
            InetSocketAddress r = p.recipient();
            InetAddress local = r != null && !r.getAddress().isAnyLocalAddress() ? r.getAddress()
                    : ((InetSocketAddress) ctx.channel().localAddress()).getAddress();
            rx.rcv(p.content(), s.getAddress(), local, s.getPort());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readComplete();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            readComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            sendErrors.incrementAndGet();
            LOG.log(System.Logger.Level.DEBUG, "rxe: " + ctx.channel() + ": " + cause);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Tx tx : channels.values()) {
            unread(tx);
            tx.close();
        }
        channels.clear();
        if (recvLoop != null) {
            recvLoop.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
