package org.jrdma.hw.rxe.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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
 * so the recipient of a received datagram is the device's own address) on UDP 4791 ({@link org.jrdma.hw.rxe.wire.RxeWire#ROCE_V2_UDP_DPORT}); epoll
 * where {@link Epoll#isAvailable()}, else NIO. What it does is chosen by an {@link RxeNetConfig} (the
 * {@code -Djrdma.rxe.net.*} switches, read once).
 *
 * <p><b>How a packet leaves</b> (defaults; epoll with Netty's natives found):
 * <ul>
 * <li>Inside a pass of a QP's roles ({@link #cork} .. {@link #uncork}, the device's {@code runCorked}) packets are
 * held in this thread's {@link Cork} and leave at the end of the pass by one sendmmsg per channel from this thread,
 * runs of equal-size packets to one peer as UDP GSO datagrams, large WRITE payloads gathered from the memory region
 * ({@link #sendGathered}) ({@link ChannelTx#sendRun}). {@code gso=false}: still one sendmmsg, one packet per
 * datagram.
 * <li>A pure ACK the receive thread's pass sends is held by the {@link RecvLoop} and sent after the datagram in hand
 * is handled (with {@code acksWithPass}, in the pass's own sendmmsg, after its packets).
 * <li>A packet sent outside a cork: from the calling thread, a sendmmsg of one ({@link ChannelTx#send}).
 * <li>Whatever cannot leave at once (EAGAIN, an error, earlier packets of the channel still queued, NIO,
 * {@code direct=false}) goes through the channel's event loop queue, in order ({@link ChannelTx#run}).
 * </ul>
 * Without a receive thread ({@code recvThread=false}, or NIO) the event loop reads, and what its read handling sends
 * is written unflushed and flushed once at the end of the read batch.
 *
 * <p><b>Source port.</b> Linux rxe sends from a per-QP flow port (0xC000..0xFFFF) to 4791. This wire sends
 * every packet from the channel bound on 4791 instead ({@link #sourcePort} returns 4791, so the device
 * computes the ICRC over the port really on the wire). Linux accepts that: {@code rxe_udp_encap_recv} is
 * registered on the destination port and never looks at the source port, and the ICRC is computed over the
 * UDP header as received. What is lost is ECMP/RSS spreading by flow port, which does not matter here.
 * Unconnected + {@code IP_PMTUDISC_DO} gives IPv4 ID 0, which is what the ICRC is computed with (the
 * default PMTUDISC_WANT does not; see hw-rxe/NOTES.md and {@link SockOpts#dontFragment}). Linux rxe accepted
 * packets from source port 4791 in that measurement.
 *
 * <p><b>Buffers.</b> Received datagrams land in pooled direct buffers; their content is handed to
 * {@link RxeDevice#rcv}, which owns it from then on (releases it exactly once). Outgoing packets are released
 * once sent (by Netty after a write through the event loop, or on a failed write); a packet for an address
 * without a channel is released here.
 *
 * <p>{@link #close()} closes all channels and shuts the event loop down, waiting for its thread to end.
 */
public final class NettyWire implements RxeWire, AutoCloseable {
    /** Prefix of the event loop threads' names. */
    public static final String THREAD_PREFIX = "rxe-net";
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");

    /** Which Netty transport to use. */
    public enum Transport {
        /** epoll if available, else NIO */
        AUTO, NIO, EPOLL
    }

    /** The largest datagram read or sent: a 9000-byte jumbo frame's payload and then some. */
    static final int MAX_DATAGRAM = 9216 + 256;

    private final RxeNetConfig config;
    private final boolean epoll;
    private final int port;
    private final EventLoopGroup group;
    /** Reads the sockets (epoll; null: the event loop reads). */
    private final RecvLoop recvLoop;
    private final Map<InetAddress, ChannelTx> channels = new ConcurrentHashMap<>();
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
    final RxeNetCounters counters = new RxeNetCounters();
    private final McastLoop mcast = new McastLoop();

    /** A wire on UDP 4791 with the switches this JVM was started with ({@link RxeNetConfig#SYSTEM}). */
    public NettyWire() {
        this(Transport.AUTO, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "");
    }

    /**
     * @param transport NIO, EPOLL (fails if epoll is unavailable) or AUTO
     * @param port the UDP port to bind and send to (4791; tests may use another)
     * @param name a suffix for the thread names
     */
    public NettyWire(Transport transport, int port, String name) {
        this(transport, port, name, RxeNetConfig.SYSTEM);
    }

    /** @param config the switches (tests: {@code RxeNetConfig.SYSTEM.withGso(false)} and the like) */
    public NettyWire(Transport transport, int port, String name, RxeNetConfig config) {
        boolean epollOk = transport != Transport.NIO && epollAvailable();
        if (transport == Transport.EPOLL && !epollOk) {
            throw new IllegalStateException("epoll is not available: " + Epoll.unavailabilityCause());
        }
        this.config = config;
        this.epoll = epollOk;
        this.port = port;
        boolean recvThread = config.recvThread() && epoll && SockOpts.socketReachable() && RecvLoop.available();
        // with a receive thread, that thread busy-polls; the event loop only sends what could not go at once
        IoHandlerFactory f = !epoll ? NioIoHandler.newFactory()
                : config.busyPoll() && !recvThread ? EpollIoHandler.newFactory(0, () -> (selectNow, hasTasks) ->
                        hasTasks ? selectNow.get() : io.netty.channel.SelectStrategy.BUSY_WAIT)
                : EpollIoHandler.newFactory();
        String threads = THREAD_PREFIX + (name.isEmpty() ? "" : "-" + name);
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(threads, true), f);
        this.mmsg = epoll && SockOpts.socketReachable() && config.direct() && EpollDgram.AVAILABLE;
        this.gso = config.gso() && mmsg;
        this.gro = config.gro() && recvThread && EpollDgram.AVAILABLE;
        this.recvLoop = recvThread ? new RecvLoop(this, threads + "-rx", config.busyPoll()) : null;
    }

    /** Whether this wire sends runs of packets as UDP GSO datagrams. */
    public boolean isGso() {
        return gso;
    }

    /** Whether packets may leave by sendmmsg from the sending thread. */
    boolean isMmsg() {
        return mmsg;
    }

    /** Whether this wire's receive thread reads coalesced (UDP_GRO) buffers. */
    public boolean isGro() {
        return gro;
    }

    /** True if a thread of its own reads this wire's sockets (else its event loop does). */
    public boolean hasRecvThread() {
        return recvLoop != null;
    }

    /** One of this wire's counters. */
    public long counter(RxeNetCounter c) {
        return counters.get(c);
    }

    /** The counters as {@code label=value} pairs. */
    public String countersString() {
        return counters.toString();
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
                        epoll && config.recvBatch() > 1 ? MAX_DATAGRAM * config.recvBatch() : MAX_DATAGRAM))
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20)
                .option(ChannelOption.AUTO_READ, recvLoop == null) // the receive thread reads
                .handler(new Rx(rx));
        InternetProtocolFamily fam = a instanceof Inet6Address ? InternetProtocolFamily.IPv6
                : InternetProtocolFamily.IPv4;
        if (epoll) {
            b.channelFactory(() -> new EpollDatagramChannel(fam));
            if (config.recvBatch() > 1) {
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
        if (a instanceof java.net.Inet4Address && !SockOpts.dontFragment(ch)) {
            LOG.log(System.Logger.Level.WARNING, () -> "rxe: could not set IP_PMTUDISC_DO on " + ch
                    + ": Linux gives its IPv4 packets a non-zero IP ID, and a Linux rxe peer drops them (ICRC)");
        }
        if (a instanceof Inet6Address && !SockOpts.acceptZeroChecksum6(ch)) {
            LOG.log(System.Logger.Level.WARNING, () -> "rxe: could not set UDP_NO_CHECK6_RX on " + ch
                    + ": a Linux rxe peer's RoCEv2 over IPv6 (UDP checksum 0) will be dropped by the kernel");
        }
        ChannelTx tx = new ChannelTx(this, ch, port, config);
        if (recvLoop != null) {
            if (tx.socket != null) {
                boolean g = gro && SockOpts.groOn(ch);
                recvLoop.add(new RecvLoop.Source(tx.socket, a, rx, g, g && EpollDgram.ipv6(tx.socket)));
            } else {
                ch.config().setAutoRead(true);
            }
        }
        channels.put(a, tx);
        LOG.log(System.Logger.Level.DEBUG, () -> "rxe: bound " + ch);
    }


    /**
     * Datagrams the kernel dropped at this wire's sockets before they were read ({@link UdpDrops}); -1 if
     * unreadable.
     */
    public long socketDrops() {
        return UdpDrops.of(channels.keySet(), port);
    }

    /** Whether the channel bound to {@code a} sends IPv4 with IP_PMTUDISC_DO (ID 0). */
    public boolean dontFragment(InetAddress a) {
        ChannelTx tx = channels.get(a);
        return tx != null && SockOpts.dontFragment(tx.ch);
    }

    private static String fmt(InetAddress a) {
        return a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
    }

    /** Closes the channels of {@code dev}'s addresses. */
    public void detach(RxeDevice dev) {
        mcast.groups.forget(dev);
        detach(dev.addresses());
    }

    /** Local delivery only (see {@link McastLoop}); receiving a group's datagrams from other hosts is not done yet. */
    @Override
    public void joinGroup(RxeDevice dev, InetAddress group) {
        mcast.groups.join(dev, group);
    }

    @Override
    public void leaveGroup(RxeDevice dev, InetAddress group) {
        mcast.groups.leave(dev, group);
    }

    void detach(List<InetAddress> addrs) {
        for (InetAddress a : addrs) {
            ChannelTx tx = channels.remove(a);
            if (tx != null) {
                unread(tx);
                tx.close();
            }
        }
    }

    /** Stops the receive thread reading {@code tx}'s socket, so that it may be closed. */
    private void unread(ChannelTx tx) {
        if (recvLoop != null && tx.socket != null) {
            recvLoop.remove(tx.socket);
        }
    }

    /** Every packet leaves from the channel bound on the RoCE port (see the class javadoc). */
    @Override
    public int sourcePort() {
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
        ChannelTx tx = route(src, head);
        if (tx != null) {
            c.holdGathered(tx, head, scoped(src, dst), hdrLen, payload, payloadIndex, payloadLen);
        }
    }

    /**
     * The channel bound to {@code src}, the packet counted as sent; null (the packet released and counted as
     * unroutable) if there is none or the wire is closed.
     */
    private ChannelTx route(InetAddress src, ByteBuf packet) {
        ChannelTx tx = channels.get(src);
        if (tx == null || closed) {
            counters.inc(RxeNetCounter.UNROUTABLE);
            packet.release();
            return null;
        }
        counters.inc(RxeNetCounter.SENT);
        return tx;
    }

    @Override
    public void send(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        if (dst.isMulticastAddress() && !closed) {
            mcast.deliver(group, src, dst, srcPort, packet);
        }
        ChannelTx tx = route(src, packet);
        if (tx == null) {
            return;
        }
        InetAddress to = scoped(src, dst);
        if (gso) {
            Cork c = corks.get();
            if (c.depth > 0) {
                c.hold(tx, packet, to);
                return;
            }
        }
        tx.send(packet, to);
    }

    /** On the receive thread, held until the datagram in hand is handled (see {@link RecvLoop}); else as {@link #send}. */
    @Override
    public void sendAck(RxeDevice from, InetAddress src, InetAddress dst, int srcPort, ByteBuf packet) {
        if (recvLoop == null || !recvLoop.inLoop()) {
            send(from, src, dst, srcPort, packet);
            return;
        }
        ChannelTx tx = route(src, packet);
        if (tx != null) {
            recvLoop.hold(tx, packet, scoped(src, dst)); // sent once the datagram in hand is handled
        }
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
                if (config.acksWithPass() && c.held.size() > 0 && recvLoop != null && recvLoop.inLoop()) {
                    // the pass sends something (a handler's answer): the ACKs the receive thread holds go in the
                    // same sendmmsg, after it. The pass's packets still leave before the QP's exec lock is let go;
                    // only ACKs move, and those may arrive late (see RecvLoop)
                    c.take(recvLoop.held());
                }
                c.flush();
            } finally {
                c.depth--;
            }
        }
    }

    /**
     * Sends what the receive thread held back ({@link RecvLoop}) and empties {@code held}: as a cork's packets
     * leave, one sendmmsg per channel with each channel's packets in their order (runs of equal-size ACKs to one
     * peer as GSO datagrams when GSO is on), the event loop for what the kernel does not take; without sendmmsg
     * one send each.
     */
    void sendHeld(HeldPackets<ChannelTx> held) {
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
        c.take(held);
        c.flush();
    }

    /**
     * True while this wire's event loop runs a read batch (only that thread reads or writes it, and the
     * loop group has one thread). Sends made then are written unflushed and noted in {@link #dirty}.
     */
    boolean reading;
    private final java.util.ArrayList<ChannelTx> dirty = new java.util.ArrayList<>();

    /** {@code tx} wrote inside the read batch: flushed when the batch ends (event loop only). */
    void written(ChannelTx tx) {
        if (!dirty.contains(tx)) {
            dirty.add(tx);
        }
    }

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
            counters.inc(RxeNetCounter.RECEIVED);
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
            counters.inc(RxeNetCounter.ERRORS);
            LOG.log(System.Logger.Level.DEBUG, "rxe: " + ctx.channel() + ": " + cause);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ChannelTx tx : channels.values()) {
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
