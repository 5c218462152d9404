package org.jrdma.hw.rxe.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@link NettyWire#socketDrops}: what the kernel dropped at the wire's socket, read from /proc/net/udp. */
class NettyWireDropsTest {
    NettyWire wire;
    DatagramChannel peer;

    @AfterEach
    void close() throws Exception {
        if (wire != null) {
            wire.close();
        }
        if (peer != null) {
            peer.close();
        }
    }

    /** The kernel's per-CPU input backlog drops (second column of /proc/net/softnet_stat, hex), 0 if unreadable. */
    static long backlogDrops() {
        long sum = 0;
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/softnet_stat"))) {
                String[] c = line.trim().split("\\s+");
                if (c.length > 1) {
                    sum += Long.parseLong(c[1], 16);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    @Test
    void procAddressIsInHostOrder() throws Exception {
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
        assertEquals("01CC447F", UdpDrops.procAddress(InetAddress.getByName("127.68.204.1")));
        assertEquals("00000000000000000000000001000000", UdpDrops.procAddress(InetAddress.getByName("::1")));
    }

    /**
     * The event loop is held inside the first read while the peer sends more than the socket's receive buffer
     * holds: every datagram is either read, once the loop goes on, or counted as dropped.
     */
    @Test
    void datagramsTheReceiveBufferCouldNotHoldAreCounted() throws Exception {
        Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/net/udp")), "no /proc/net/udp");
        String net = WirePeer.randomNet();
        InetAddress a = InetAddress.getByName(net + "1");
        InetAddress b = InetAddress.getByName(net + "2");
        wire = new NettyWire(NettyWire.Transport.AUTO, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT, "drops");
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong received = new AtomicLong();
        wire.attach(List.of(a), (buf, src, dst, port) -> {
            buf.release();
            received.incrementAndGet();
            first.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertEquals(0, wire.socketDrops());
        peer = DatagramChannel.open().bind(new InetSocketAddress(b, 0));
        InetSocketAddress to = new InetSocketAddress(a, org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT);
        peer.send(ByteBuffer.allocate(64), to);
        assertTrue(first.await(10, TimeUnit.SECONDS));
        long backlog0 = backlogDrops();
        int n = 3000; // 8 KiB each: far more than the 4 MiB (8 MiB as the kernel counts it) receive buffer
        ByteBuffer d = ByteBuffer.allocateDirect(8192);
        for (int i = 0; i < n; i++) {
            peer.send(d.clear(), to);
        }
        long lost = backlogDrops() - backlog0; // dropped before any socket (loopback backlog): not the socket's
        release.countDown();
        long end = System.nanoTime() + 10_000_000_000L;
        while (received.get() + wire.socketDrops() < n + 1 - lost && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        long drops = wire.socketDrops();
        assertTrue(drops > 0, "the buffer overflowed: " + received + " read");
        assertEquals(n + 1 - lost, received.get() + drops, "read + dropped at the socket = sent - dropped in the backlog");
        assertEquals(received.get(), wire.counter(RxeNetCounter.RECEIVED));
    }
}
