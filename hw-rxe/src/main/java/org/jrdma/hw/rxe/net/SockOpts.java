package org.jrdma.hw.rxe.net;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.Socket;

/**
 * The socket options a {@link NettyWire} sets on its channels, and the channel's socket itself: Netty keeps it in a
 * protected field of a package-private class, which the wire reads by reflection to send from the calling thread
 * ({@link ChannelTx}) and to read from its own thread ({@link RecvLoop}).
 */
final class SockOpts {
    private static final System.Logger LOG = System.getLogger("org.jrdma.hw.rxe.net");
    /** Linux {@code IPPROTO_IP}, {@code IP_MTU_DISCOVER}, {@code IP_PMTUDISC_DO}. */
    private static final int IPPROTO_IP = 0;
    private static final int IP_MTU_DISCOVER = 10;
    static final int IP_PMTUDISC_DO = 2;
    private static final IntegerUnixChannelOption MTU_DISCOVER =
            new IntegerUnixChannelOption("IP_MTU_DISCOVER", IPPROTO_IP, IP_MTU_DISCOVER);
    /** Linux {@code SOL_UDP}, {@code UDP_NO_CHECK6_RX}. */
    private static final int SOL_UDP = 17;
    private static final int UDP_NO_CHECK6_RX = 102;
    private static final IntegerUnixChannelOption NO_CHECK6_RX =
            new IntegerUnixChannelOption("UDP_NO_CHECK6_RX", SOL_UDP, UDP_NO_CHECK6_RX);
    private static final java.lang.reflect.Field EPOLL_SOCKET = epollSocketField();

    private SockOpts() {
    }

    private static java.lang.reflect.Field epollSocketField() {
        try {
            // AbstractEpollChannel.socket (package-private class, protected final field)
            for (Class<?> c = EpollDatagramChannel.class; c != null; c = c.getSuperclass()) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (f.getName().equals("socket") && Socket.class.isAssignableFrom(f.getType())) {
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

    /** Whether an epoll channel's socket can be had ({@link #socketOf}). */
    static boolean socketReachable() {
        return EPOLL_SOCKET != null;
    }

    /** The epoll channel's socket; null for NIO, or when this Netty hides it. */
    static Socket socketOf(Channel ch) {
        if (EPOLL_SOCKET == null || !(ch instanceof EpollDatagramChannel)) {
            return null;
        }
        try {
            return (Socket) EPOLL_SOCKET.get(ch);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Sets UDP_GRO on an epoll channel; whether it is on. */
    static boolean groOn(Channel ch) {
        try {
            ch.config().setOption(EpollChannelOption.UDP_GRO, true);
            return Boolean.TRUE.equals(ch.config().getOption(EpollChannelOption.UDP_GRO));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: no UDP_GRO on " + ch + ": " + e);
            return false;
        }
    }

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
     * Sets {@code UDP_NO_CHECK6_RX} on an IPv6 epoll channel: Linux rxe sends RoCEv2 over IPv6 with a zero UDP
     * checksum (its tunnel socket has {@code use_udp6_tx_checksums} off and accepts the same on receive), which the
     * kernel drops for an ordinary IPv6 socket (Udp6InCsumErrors): measured against Linux 6.1, every packet.
     *
     * @return whether it is set (NIO: no way to set it)
     */
    static boolean acceptZeroChecksum6(Channel ch) {
        try {
            if (ch instanceof EpollDatagramChannel) {
                ch.config().setOption(NO_CHECK6_RX, 1);
                Integer v = ch.config().getOption(NO_CHECK6_RX);
                return v != null && v != 0;
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "rxe: no UDP_NO_CHECK6_RX on " + ch + ": " + e);
        }
        return false;
    }
}
