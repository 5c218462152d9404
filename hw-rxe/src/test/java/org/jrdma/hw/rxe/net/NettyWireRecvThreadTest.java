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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;

/**
 * The epoll wire's receive thread ({@link RecvLoop}): datagrams arrive byte-exact with their sender, ACKs a
 * handler sends are held back until it is done (so its answer leaves first), sockets can be detached and
 * bound again while it runs, and close ends the thread and frees the port.
 */
class NettyWireRecvThreadTest {
    static final int PORT = org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT;
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
        open(rx, RxeNetConfig.SYSTEM);
    }

    private void open(NettyWire.Receiver rx, RxeNetConfig config) throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available");
        String net = WirePeer.randomNet();
        a = InetAddress.getByName(net + "1");
        b = InetAddress.getByName(net + "2");
        wire = new NettyWire(NettyWire.Transport.EPOLL, PORT, "rt", config.withRecvThread(true));
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

    /** Sends {@code p} from {@code ch} (the peer's side, not the wire under test) and releases it. */
    private static void sendFrom(DatagramChannel ch, ByteBuf p, InetSocketAddress to) throws java.io.IOException {
        try {
            ch.send(p.nioBuffer(), to);
        } finally {
            p.release();
        }
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
        assertEquals(2, wire.counter(RxeNetCounter.RECEIVED));
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
            wire.sendAck(null, a, b, 0, packet(0x11, tag)); // RC ACKNOWLEDGE
            wire.send(null, a, b, 0, packet(0x04, tag)); // RC SEND ONLY, the answer
        });
        for (int tag = 1; tag <= 20; tag++) {
            sendFrom(peer, packet(0x04, tag), new InetSocketAddress(a, PORT));
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
            wire.sendAck(null, a, b, 0, packet(0x11, tag));
        });
        int n = RecvLoop.ACK_BATCH * 3 + 5;
        for (int tag = 0; tag < n; tag++) {
            sendFrom(peer, packet(0x04, tag), new InetSocketAddress(a, PORT));
        }
        for (int tag = 0; tag < n; tag++) {
            byte[] ack = receive();
            assertTrue(ack != null, "ACK " + tag + " never sent");
            assertEquals(tag, ByteBuffer.wrap(ack, 4, 4).getInt());
        }
    }

    /**
     * A handler that ACKs from two local addresses (two channels) to two peers, in turns: all held ACKs leave, each
     * byte for byte, in the order sent from its address to its peer; each channel's held ACKs leave by one sendmmsg
     * (at most two per datagram handled, against four sendto before). With GSO off as well: sendmmsg needs no GSO.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void heldAcksToTwoPeersFromTwoAddressesArriveExactAndInOrder(boolean gso) throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available");
        String net = WirePeer.randomNet();
        a = InetAddress.getByName(net + "1");
        b = InetAddress.getByName(net + "2");
        InetAddress a2 = InetAddress.getByAddress(new byte[] {127, a.getAddress()[1], a.getAddress()[2], 3});
        InetAddress c = InetAddress.getByAddress(new byte[] {127, a.getAddress()[1], a.getAddress()[2], 4});
        InetAddress[] from = {a, a2, a, a2};
        InetAddress[] to = {b, c, c, b};
        int n = RecvLoop.ACK_BATCH * 2 + 3;
        // the bytes of ACK k for datagram i: 24..87 of them, random
        java.util.function.BiFunction<Integer, Integer, byte[]> content = (i, k) -> {
            byte[] p = new byte[24 + (i * 7 + k * 13) % 64];
            new java.util.Random(i * 4L + k).nextBytes(p);
            p[0] = 0x11; // RC ACKNOWLEDGE: held
            return p;
        };
        wire = new NettyWire(NettyWire.Transport.EPOLL, PORT, "rt", RxeNetConfig.SYSTEM.withRecvThread(true).withGso(gso));
        wire.attach(List.of(a, a2), (p, src, dst, port) -> {
            int i = p.getInt(4);
            p.release();
            for (int k = 0; k < 4; k++) {
                byte[] c2 = content.apply(i, k);
                ByteBuf q = PooledByteBufAllocator.DEFAULT.directBuffer(c2.length).writeBytes(c2);
                wire.sendAck(null, from[k], to[k], 0, q);
            }
        });
        peer = DatagramChannel.open().bind(new InetSocketAddress(b, PORT));
        DatagramChannel peerC = DatagramChannel.open().bind(new InetSocketAddress(c, PORT));
        DatagramChannel trigger = DatagramChannel.open().bind(new InetSocketAddress(c, PORT + 1));
        try {
            long mmsg0 = wire.counter(RxeNetCounter.SENDMMSGS);
            for (int i = 0; i < n; i++) {
                sendFrom(trigger, packet(0x04, i), new InetSocketAddress(a, PORT));
            }
            // per (source, peer) the ACKs in the order sent; a peer may get the two sources' ACKs interleaved
            java.util.Map<InetAddress, java.util.List<byte[]>> atB = new java.util.HashMap<>();
            java.util.Map<InetAddress, java.util.List<byte[]>> atC = new java.util.HashMap<>();
            for (int i = 0; i < 2 * n; i++) {
                receiveFrom(peer, atB);
                receiveFrom(peerC, atC);
            }
            for (int k = 0; k < 4; k++) {
                java.util.List<byte[]> got = (to[k] == b ? atB : atC).get(from[k]);
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(content.apply(i, k), got.get(i), "ACK " + i + "/" + k + " from " + from[k]
                            + " to " + to[k]);
                }
            }
            assertEquals(null, WirePeer.receive(peer, 9000) == null ? null : "more", "nothing else arrived at b");
            long calls = wire.counter(RxeNetCounter.SENDMMSGS) - mmsg0;
            assertTrue(calls > 0 && calls <= 2L * n, "sendmmsg calls " + calls + " for " + n + " datagrams handled");
            assertEquals(0, wire.counter(RxeNetCounter.GSO_DATAGRAMS), "a channel's held ACKs alternate between the peers: no GSO run");
        } finally {
            peerC.close();
            trigger.close();
        }
    }

    /** The next datagram at {@code p}, filed by its source (fails after 5 s). */
    private static void receiveFrom(DatagramChannel p, java.util.Map<InetAddress, java.util.List<byte[]>> by)
            throws Exception {
        ByteBuffer in = ByteBuffer.allocate(9000);
        p.configureBlocking(false);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        InetSocketAddress src;
        while ((src = (InetSocketAddress) p.receive(in)) == null) {
            assertTrue(System.nanoTime() < end, "an ACK is missing");
            Thread.sleep(1);
        }
        in.flip();
        byte[] c = new byte[in.remaining()];
        in.get(c);
        by.computeIfAbsent(src.getAddress(), x -> new java.util.ArrayList<>()).add(c);
    }

    /**
     * What a QP's pass does on a round trip, inside a cork on the receive thread: the responder's ACK (held), then a
     * completion handler's answer. With {@code acksWithPass} answer and ACK leave by one sendmmsg, the answer first,
     * as two datagrams (not one GSO datagram: measured slower); without it (the default) the ACK waits for the end of
     * the datagram: two sends, the answer still first.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void answerAndHeldAckLeaveAnswerFirstByOneSendmmsgIfTaken(boolean along) throws Exception {
        answerAndHeldAck(along);
    }

    private void answerAndHeldAck(boolean along) throws Exception {
        open((p, src, dst, port) -> {
            int tag = p.getInt(4);
            p.release();
            wire.cork();
            try {
                wire.sendAck(null, a, b, 0, packet(0x11, tag)); // the responder's ACK: held
                wire.send(null, a, b, 0, packet(0x04, tag).writeZero(4)); // the answer, 28 bytes: corked
            } finally {
                wire.uncork();
            }
        }, RxeNetConfig.SYSTEM.withGso(true).withAcksWithPass(along));
        Assumptions.assumeTrue(wire.isGso(), "no UDP GSO here");
        int rounds = 20;
        long mmsg0 = wire.counter(RxeNetCounter.SENDMMSGS);
        for (int tag = 1; tag <= rounds; tag++) {
            sendFrom(peer, packet(0x04, tag), new InetSocketAddress(a, PORT));
            byte[] first = receive();
            byte[] second = receive();
            assertEquals(0x04, first[0], "the answer first");
            assertEquals(28, first.length);
            assertEquals(0x11, second[0], "then the ACK");
            assertEquals(24, second.length);
            assertEquals(tag, ByteBuffer.wrap(first, 4, 4).getInt());
            assertEquals(tag, ByteBuffer.wrap(second, 4, 4).getInt());
        }
        assertEquals((along ? 1 : 2) * rounds, wire.counter(RxeNetCounter.SENDMMSGS) - mmsg0, "sendmmsg calls");
        assertEquals(0, wire.counter(RxeNetCounter.GSO_DATAGRAMS), "answer and ACK as datagrams of their own");
    }

    /**
     * A direct send while this thread's sendmmsg batch is being filled (a datagram begun, or ended but not sent)
     * does not touch the batch: it falls back to sendto, arrives, and the batch still holds what it held. With the
     * batch idle again, a direct send is a sendmmsg of one.
     */
    @Test
    void aDirectSendFallsBackToSendtoWhileTheBatchIsBusy() throws Exception {
        open(this::record);
        Assumptions.assumeTrue(EpollDgram.AVAILABLE, "no sendmmsg through Netty's natives");
        EpollDgram.Batch bt = EpollDgram.batch();
        ByteBuf held = PooledByteBufAllocator.DEFAULT.directBuffer(24).writeZero(24);
        try {
            for (int busy = 0; busy < 2; busy++) {
                assertTrue(bt.idle());
                bt.begin(bt.address(b, PORT), 0);
                bt.add(held);
                if (busy == 1) {
                    bt.end();
                }
                long mmsg0 = wire.counter(RxeNetCounter.SENDMMSGS);
                ByteBuf p = packet(0x04, 100 + busy);
                byte[] want = new byte[24];
                p.getBytes(0, want);
                wire.send(null, a, b, 0, p);
                assertArrayEquals(want, receive(), "sent by sendto while the batch is busy");
                assertEquals(0, p.refCnt(), "released once sent");
                assertEquals(mmsg0, wire.counter(RxeNetCounter.SENDMMSGS), "not by sendmmsg");
                if (busy == 0) {
                    assertEquals(0, bt.count(), "the datagram begun is still open");
                    bt.end();
                }
                assertEquals(1, bt.count(), "the batch's datagram is still there");
                bt.clear();
            }
            ByteBuf p = packet(0x04, 102);
            byte[] want = new byte[24];
            p.getBytes(0, want);
            long mmsg0 = wire.counter(RxeNetCounter.SENDMMSGS);
            wire.send(null, a, b, 0, p);
            assertArrayEquals(want, receive());
            assertEquals(mmsg0 + 1, wire.counter(RxeNetCounter.SENDMMSGS), "idle again: a sendmmsg of one");
            assertTrue(bt.idle());
        } finally {
            bt.clear();
            held.release();
        }
    }

    /**
     * A direct send of a direct buffer allocates nothing per datagram (Netty's sendToAddress makes two address arrays
     * each time): the batch's slot keeps the recipient, the destination's InetSocketAddress is cached per thread.
     */
    @Test
    void aDirectSendAllocatesNothingPerDatagram() throws Exception {
        open(this::record);
        Assumptions.assumeTrue(EpollDgram.AVAILABLE, "no sendmmsg through Netty's natives");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long me = Thread.currentThread().getId();
        // no pool, no leak detector: retained before each send, which releases it once
        ByteBuf p = new io.netty.buffer.UnpooledByteBufAllocator(true, true).directBuffer(24).writeZero(24);
        InetAddress other = InetAddress.getByAddress(b.getAddress()); // equal to b, another object
        try {
            for (int i = 0; i < 20_000; i++) { // warm-up: the MethodHandles linked, the hot path compiled
                wire.send(null, a, i % 2 == 0 ? b : other, 0, p.retain());
            }
            // the least of several rounds: on a busy host C2 may not have compiled the path yet (what the interpreter
            // allocates, escape analysis removes); sendto's address arrays are ~56 B in every round
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 10 && least >= 4; round++) {
                long s0 = wire.counter(RxeNetCounter.SENDMMSGS);
                long before = mx.getThreadAllocatedBytes(me);
                int n = 5_000;
                for (int i = 0; i < n; i++) {
                    wire.send(null, a, i % 2 == 0 ? b : other, 0, p.retain());
                }
                least = Math.min(least, (mx.getThreadAllocatedBytes(me) - before) / n);
                assertEquals(n, wire.counter(RxeNetCounter.SENDMMSGS) - s0, "every send a sendmmsg of one");
            }
            assertTrue(least < 4, least + " B allocated per send");
        } finally {
            p.release();
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
