package org.jrdma.hw.rxe.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;

/**
 * The wire keeps the order of what one sender sends, whichever thread calls {@link NettyWire#send}: the
 * event loop inside a read batch (written, flushed when the batch ends), or another thread (sendto(2) on
 * the socket directly, when nothing is on its way through the event loop). A packet that overtook the
 * earlier ones of its QP was a PSN gap to the responder: a sequence NAK and a go-back-N of the whole
 * window, hundreds of them a second in RxeBandwidthBench (bench/BOUNDS.md).
 */
class NettyWireOrderTest {
    NettyWire wire;
    DatagramChannel peer;
    InetAddress a;
    InetAddress b;

    @AfterEach
    void close() throws Exception {
        if (wire != null) {
            wire.close();
        }
        if (peer != null) {
            peer.close();
        }
    }

    /** A wire (epoll: the direct path exists only there) on 127.X.Y.1, a plain socket as its peer on .2. */
    private void open(NettyWire.Receiver rx) throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available");
        String net = WirePeer.randomNet();
        a = InetAddress.getByName(net + "1");
        b = InetAddress.getByName(net + "2");
        wire = new NettyWire(NettyWire.Transport.EPOLL, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "order");
        wire.attach(List.of(a), rx);
        peer = DatagramChannel.open().bind(new InetSocketAddress(b, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT));
        peer.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
    }

    private void send(int seq) {
        ByteBuf p = PooledByteBufAllocator.DEFAULT.heapBuffer(32);
        p.writeInt(seq).writeZero(28);
        wire.send(null, a, b, 0, p);
    }

    private void poke() throws Exception {
        peer.send(ByteBuffer.allocate(32), new InetSocketAddress(a, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT));
    }

    /** The next sequence number the peer receives, or -1 after {@code ms}. */
    private int receive(long ms) throws Exception {
        java.net.DatagramPacket d = new java.net.DatagramPacket(new byte[64], 64);
        peer.socket().setSoTimeout((int) ms);
        try {
            peer.socket().receive(d);
        } catch (SocketTimeoutException e) {
            return -1;
        }
        return ByteBuffer.wrap(d.getData(), 0, d.getLength()).getInt();
    }

    /**
     * The event loop answers inside a read (as the responder's ACK or a requester run by an ACK does) and is
     * still in that read batch, its packet written but not flushed, when another thread sends the next
     * packet of the same sender: that one must wait, not go out first by sendto.
     */
    @Test
    void aSendFromAnotherThreadWaitsForTheEventLoopsUnflushedWrite() throws Exception {
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        open((buf, src, dst, port) -> {
            buf.release();
            send(1);
            written.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        poke();
        assertTrue(written.await(10, TimeUnit.SECONDS), "the wire read the poke");
        send(2);
        int first = receive(200); // the event loop still holds 1: nothing may arrive yet
        release.countDown();
        if (first == -1) {
            first = receive(5000);
        }
        assertEquals(1, first, "the packet written by the event loop first arrives first");
        assertEquals(2, receive(5000));
    }

    /**
     * One sender (a lock, as a QP's exec lock) driven by two threads at once: the event loop, for every
     * datagram the peer sends in, and a posting thread. Every packet the peer receives has a higher
     * sequence number than the one before (losses would show as gaps, never as a step back).
     */
    @Test
    void oneSendersPacketsArriveInOrderFromTwoThreads() throws Exception {
        ReentrantLock qp = new ReentrantLock();
        int[] seq = {0};
        int total = 20_000;
        open((buf, src, dst, port) -> {
            buf.release();
            qp.lock();
            try {
                for (int i = 0; i < 4 && seq[0] < total; i++) {
                    send(++seq[0]);
                }
            } finally {
                qp.unlock();
            }
        });
        AtomicReference<String> disorder = new AtomicReference<>();
        int[] got = {0};
        Thread sink = new Thread(() -> {
            int last = 0;
            try {
                int s;
                while ((s = receive(2000)) != -1) {
                    got[0]++;
                    if (s <= last && disorder.get() == null) {
                        disorder.set(s + " after " + last);
                    }
                    last = Math.max(last, s);
                    if (s == total) {
                        return;
                    }
                }
            } catch (Exception e) {
                disorder.compareAndSet(null, e.toString());
            }
        }, "order-sink");
        sink.start();
        Thread poker = new Thread(() -> {
            try {
                while (sink.isAlive()) {
                    poke();
                    Thread.onSpinWait();
                }
            } catch (Exception e) {
                // closed
            }
        }, "order-poker");
        poker.setDaemon(true);
        poker.start();
        while (true) {
            qp.lock();
            try {
                if (seq[0] >= total) {
                    break;
                }
                send(++seq[0]);
            } finally {
                qp.unlock();
            }
            if ((seq[0] & 63) == 0) {
                Thread.yield();
            }
        }
        sink.join(20_000);
        assertEquals(null, disorder.get(), "out of order (" + got[0] + " received)");
        assertTrue(got[0] > total / 2, "most packets arrived: " + got[0]);
    }
}
