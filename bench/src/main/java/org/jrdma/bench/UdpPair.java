package org.jrdma.bench;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;

/**
 * The baseline transport: two plain Netty datagram channels on the same kind of loopback addresses as
 * {@link RxePair}, each on an event loop of its own (as each rxe device has), same transport (epoll),
 * same socket buffers. What a datagram costs here is the ceiling for what hw-rxe can do per packet.
 */
final class UdpPair implements AutoCloseable {
    static final int PORT = 4792;
    final EventLoopGroup ga;
    final EventLoopGroup gb;
    final Channel a;
    final Channel b;
    final InetSocketAddress addrA;
    final InetSocketAddress addrB;
    /** Datagrams and bytes that reached b (blast), or a (pingpong replies). */
    final AtomicLong receivedB = new AtomicLong();
    final AtomicLong bytesB = new AtomicLong();
    volatile long repliesA;
    volatile Thread waiter;
    /** Pingpong: datagrams a still sends back on its own before waking the waiter (chained mode). */
    int chain;

    /** @param echo whether b sends every datagram back to a from its event loop */
    UdpPair(String net, boolean echo) throws Exception {
        boolean epoll = Epoll.isAvailable();
        ga = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        gb = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        addrA = new InetSocketAddress(net + "1", PORT);
        addrB = new InetSocketAddress(net + "2", PORT);
        a = bind(ga, addrA, epoll, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                DatagramPacket p = (DatagramPacket) msg;
                repliesA++;
                if (chain > 0) {
                    chain--;
                    ctx.writeAndFlush(new DatagramPacket(p.content(), addrB), ctx.voidPromise());
                    return;
                }
                p.release();
                Thread w = waiter;
                if (w != null) {
                    java.util.concurrent.locks.LockSupport.unpark(w);
                }
            }
        });
        b = bind(gb, addrB, epoll, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                DatagramPacket p = (DatagramPacket) msg;
                receivedB.incrementAndGet();
                bytesB.addAndGet(p.content().readableBytes());
                if (echo) {
                    ctx.writeAndFlush(new DatagramPacket(p.content(), p.sender()), ctx.voidPromise());
                } else {
                    p.release();
                }
            }
        });
    }

    private static Channel bind(EventLoopGroup g, InetSocketAddress at, boolean epoll, ChannelInboundHandlerAdapter h)
            throws InterruptedException {
        Bootstrap bs = new Bootstrap().group(g).option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(9216 + 256))
                .option(ChannelOption.SO_RCVBUF, 4 << 20).option(ChannelOption.SO_SNDBUF, 4 << 20).handler(h);
        if (epoll) {
            bs.channel(EpollDatagramChannel.class);
        } else {
            bs.channel(NioDatagramChannel.class);
        }
        return bs.bind(at).sync().channel();
    }

    /** A datagram of {@code len} bytes to b, payload copied from {@code src} as a transport would. */
    DatagramPacket toB(ByteBuf src, int len) {
        ByteBuf d = PooledByteBufAllocator.DEFAULT.directBuffer(len, len);
        d.writeBytes(src, src.readerIndex(), len);
        return new DatagramPacket(d, addrB);
    }

    @Override
    public void close() {
        a.close().syncUninterruptibly();
        b.close().syncUninterruptibly();
        ga.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        gb.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
