package org.jrdma.hw.rxe.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;

/**
 * The epoll wire's receive thread ({@link RecvLoop}): datagrams arrive byte-exact with their sender, ACKs a
 * handler sends are held back until it is done (so its answer leaves first), sockets can be detached and
 * bound again while it runs, and close ends the thread and frees the port.
 */
class NettyWireRecvThreadTest {
    static final int PORT = NettyWire.ROCE_PORT;
    NettyWire wire;
    DatagramChannel peer;
    InetAddress a;
    InetAddress b;
    final BlockingQueue<Object[]> got = new ArrayBlockingQueue<>(64);

    @AfterEach
    void close() throws Exception {
        if (wire != null) {
            wire.close();
        }
        if (peer != null) {
            peer.close();
        }
    }

    private void open(NettyWire.Receiver rx) throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available");
        String net = WirePeer.randomNet();
        a = InetAddress.getByName(net + "1");
        b = InetAddress.getByName(net + "2");
        wire = new NettyWire(NettyWire.Transport.EPOLL, PORT, "rt", true);
        assertTrue(wire.hasRecvThread(), "this Netty gives no access to the channel's socket");
        wire.attach(List.of(a), rx);
        peer = DatagramChannel.open().bind(new InetSocketAddress(b, PORT));
    }

    /** Records each datagram (content, source, destination, port) and releases it. */
    private void record(ByteBuf p, InetAddress src, InetAddress dst, int srcPort) {
        byte[] c = new byte[p.readableBytes()];
        p.getBytes(p.readerIndex(), c);
        p.release();
        got.add(new Object[] {c, src, dst, srcPort});
    }

    private ByteBuf packet(int opcode, int tag) {
        ByteBuf p = PooledByteBufAllocator.DEFAULT.directBuffer(24);
        return p.writeByte(opcode).writeZero(3).writeInt(tag).writeZero(16);
    }

    private byte[] receive() throws Exception {
        return WirePeer.receive(peer, 9000);
    }

    @Test
    void datagramsArriveByteExactWithTheirSender() throws Exception {
        open(this::record);
        byte[] small = new byte[24];
        byte[] large = new byte[4096 + 28];
        ThreadLocalRandom.current().nextBytes(small);
        ThreadLocalRandom.current().nextBytes(large);
        InetSocketAddress to = new InetSocketAddress(a, PORT);
        peer.send(ByteBuffer.wrap(small), to);
        peer.send(ByteBuffer.wrap(large), to);
        for (byte[] want : new byte[][] {small, large}) {
            Object[] r = got.poll(5, TimeUnit.SECONDS);
            assertTrue(r != null, "nothing received");
            assertArrayEquals(want, (byte[]) r[0]);
            assertEquals(b, r[1]);
            assertEquals(a, r[2]);
            assertEquals(PORT, r[3]);
        }
        assertEquals(2, wire.received.get());
    }

    /**
     * A handler that ACKs and then answers (what the responder and a completion handler do on a round trip):
     * the answer leaves first, the ACK right after it.
     */
    @Test
    void ackIsSentAfterTheAnswer() throws Exception {
        open((p, src, dst, port) -> {
            int tag = p.getInt(4);
            p.release();
            wire.send(null, a, b, 0, packet(0x11, tag)); // RC ACKNOWLEDGE
            wire.send(null, a, b, 0, packet(0x04, tag)); // RC SEND ONLY, the answer
        });
        for (int tag = 1; tag <= 20; tag++) {
            peer.send(packet(0x04, tag).nioBuffer(), new InetSocketAddress(a, PORT));
            byte[] first = receive();
            byte[] second = receive();
            assertEquals(0x04, first[0], "the answer first");
            assertEquals(0x11, second[0], "then the ACK");
            assertEquals(tag, ByteBuffer.wrap(first, 4, 4).getInt());
            assertEquals(tag, ByteBuffer.wrap(second, 4, 4).getInt());
        }
    }

    /** ACKs held back keep their order and all leave, also when more datagrams than a batch wait. */
    @Test
    void heldAcksAllLeaveInOrder() throws Exception {
        open((p, src, dst, port) -> {
            int tag = p.getInt(4);
            p.release();
            wire.send(null, a, b, 0, packet(0x11, tag));
        });
        int n = RecvLoop.ACK_BATCH * 3 + 5;
        for (int tag = 0; tag < n; tag++) {
            peer.send(packet(0x04, tag).nioBuffer(), new InetSocketAddress(a, PORT));
        }
        for (int tag = 0; tag < n; tag++) {
            byte[] ack = receive();
            assertTrue(ack != null, "ACK " + tag + " never sent");
            assertEquals(tag, ByteBuffer.wrap(ack, 4, 4).getInt());
        }
    }

    @Test
    void detachAndBindAgainWhileTheThreadRuns() throws Exception {
        open(this::record);
        InetSocketAddress to = new InetSocketAddress(a, PORT);
        for (int round = 0; round < 5; round++) {
            wire.detach(List.of(a));
            // the port is free again: the socket was taken out of the receive thread's epoll set and closed
            try (DatagramChannel probe = DatagramChannel.open().bind(to)) {
                assertTrue(probe.isOpen());
            }
            wire.attach(List.of(a), this::record);
            peer.send(ByteBuffer.wrap(new byte[] {(byte) round}), to);
            Object[] r = got.poll(5, TimeUnit.SECONDS);
            assertTrue(r != null, "nothing received after bind " + round);
            assertEquals(round, ((byte[]) r[0])[0]);
        }
    }

    @Test
    void closeEndsTheReceiveThreadAndFreesThePort() throws Exception {
        open(this::record);
        assertTrue(threadAlive(), "no receive thread");
        wire.close();
        assertFalse(threadAlive(), "the receive thread survived close");
        try (DatagramChannel probe = DatagramChannel.open().bind(new InetSocketAddress(a, PORT))) {
            assertTrue(probe.isOpen());
        }
        wire = null;
    }

    private static boolean threadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals(NettyWire.THREAD_PREFIX + "-rt-rx"));
    }
}
