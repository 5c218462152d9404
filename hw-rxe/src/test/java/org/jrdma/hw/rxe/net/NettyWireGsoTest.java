package org.jrdma.hw.rxe.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.hw.rxe.PacketPool;
import org.jrdma.hw.rxe.wire.Icrc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;

/**
 * UDP GSO on the send side and UDP GRO on the receive side of the epoll wire: what one cork holds leaves as GSO
 * datagrams that a plain socket (a Linux peer) receives as the very packets sent, each with the ICRC of the IP ID
 * the kernel gives its segment; a GRO read is cut back into those packets; switched off, the wire sends and
 * reads one datagram per packet; order and buffer ownership are kept throughout.
 */
class NettyWireGsoTest {
    static final int PORT = org.jrdma.hw.rxe.wire.RxeWire.ROCE_V2_UDP_DPORT;
    final List<AutoCloseable> open = new ArrayList<>();
    InetAddress a;
    InetAddress b;
    final Icrc icrc = new Icrc();
    final BlockingQueue<byte[]> got = new LinkedBlockingQueue<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private void addresses() {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available");
        String net = WirePeer.randomNet();
        try {
            a = InetAddress.getByName(net + "1");
            b = InetAddress.getByName(net + "2");
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private NettyWire wire(InetAddress at, boolean gso, boolean gro, NettyWire.Receiver rx) {
        NettyWire w = new NettyWire(NettyWire.Transport.EPOLL, PORT, "gso",
                RxeNetConfig.SYSTEM.withRecvThread(true).withGso(gso).withGro(gro));
        open.add(w);
        w.attach(List.of(at), rx);
        return w;
    }

    private DatagramChannel plainPeer(InetAddress at) throws Exception {
        DatagramChannel p = DatagramChannel.open().bind(new InetSocketAddress(at, PORT));
        p.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
        open.add(p);
        return p;
    }

    /**
     * A RoCE-like packet of {@code len} bytes (random BTH and payload) whose ICRC is right for a to b over IPv4
     * with IP ID 0, as the device computes it.
     */
    private byte[] packet(SplittableRandom rnd, int len) {
        byte[] p = new byte[len];
        for (int i = 0; i < len - 4; i++) {
            p[i] = (byte) rnd.nextInt(256);
        }
        ByteBuf w = io.netty.buffer.Unpooled.wrappedBuffer(p);
        Icrc.store(w, 0, len, icrc.ipv4(v4(a), v4(b), 0, Icrc.IPV4_DF, PORT, PORT, w, 0, len));
        return p;
    }

    /** The IP ID whose ICRC the packet carries (-1: none of 0..255). */
    private int icrcId(byte[] p) {
        ByteBuf w = io.netty.buffer.Unpooled.wrappedBuffer(p);
        int stored = Icrc.stored(w, 0, p.length);
        for (int id = 0; id < 256; id++) {
            if (icrc.ipv4(v4(a), v4(b), id, Icrc.IPV4_DF, PORT, PORT, w, 0, p.length) == stored) {
                return id;
            }
        }
        return -1;
    }

    private static int v4(InetAddress x) {
        byte[] r = x.getAddress();
        return (r[0] & 0xff) << 24 | (r[1] & 0xff) << 16 | (r[2] & 0xff) << 8 | (r[3] & 0xff);
    }

    /** The packet with its ICRC turned from IP ID 0 to IP ID {@code id}. */
    private byte[] withId(byte[] p, int id) {
        byte[] c = p.clone();
        ByteBuf w = io.netty.buffer.Unpooled.wrappedBuffer(c);
        Icrc.store(w, 0, c.length, icrc.ipv4(v4(a), v4(b), id, Icrc.IPV4_DF, PORT, PORT, w, 0, c.length));
        return c;
    }

    private static ByteBuf direct(byte[] p) {
        return PacketPool.ALLOC.directBuffer(p.length, p.length).writeBytes(p);
    }

    private static byte[] receive(DatagramChannel peer) throws Exception {
        return WirePeer.receive(peer, 65536);
    }

    private static byte[] tail(byte[] p) {
        return java.util.Arrays.copyOf(p, p.length - 4);
    }

    /** The next datagrams, one per packet of {@code sent}, each the packet but for its ICRC: which IP ID each ICRC is for. */
    private int[] receiveAll(DatagramChannel peer, List<byte[]> sent) throws Exception {
        int[] ids = new int[sent.size()];
        for (int i = 0; i < sent.size(); i++) {
            byte[] r = receive(peer);
            assertTrue(r != null, "datagram " + i + " arrived");
            assertEquals(sent.get(i).length, r.length, "datagram " + i);
            assertArrayEquals(tail(sent.get(i)), tail(r), "datagram " + i);
            ids[i] = icrcId(r);
        }
        return ids;
    }

    /**
     * One cork: a FIRST-like packet (16 bytes longer), 15 equal ones and a shorter last, then a heap packet (sent
     * on its own, in its place), then two more. The plain peer gets 19 datagrams in order, byte for byte but the
     * ICRC, and segment k of a GSO datagram carries the ICRC for IP ID k: what the kernel gives it.
     */
    @Test
    void aGsoDatagramReachesAPlainPeerAsThePacketsSentWithTheIcrcOfTheirIpId() throws Exception {
        addresses();
        NettyWire w = wire(a, true, true, (p, s, d, port) -> p.release());
        Assumptions.assumeTrue(w.isGso(), "no UDP GSO here");
        DatagramChannel peer = plainPeer(b);
        SplittableRandom rnd = new SplittableRandom(1);
        List<byte[]> sent = new ArrayList<>();
        sent.add(packet(rnd, 4128));
        for (int i = 0; i < 15; i++) {
            sent.add(packet(rnd, 4112));
        }
        sent.add(packet(rnd, 1000));
        sent.add(packet(rnd, 64));
        sent.add(packet(rnd, 600));
        sent.add(packet(rnd, 600));
        List<ByteBuf> bufs = new ArrayList<>();
        w.cork();
        for (int i = 0; i < sent.size(); i++) {
            ByteBuf buf = i == 17 ? PooledByteBufAllocator.DEFAULT.heapBuffer(64).writeBytes(sent.get(i)) : direct(sent.get(i));
            bufs.add(buf);
            w.send(null, a, b, 0, buf);
        }
        assertEquals(1, bufs.get(0).refCnt(), "held until the uncork");
        w.uncork();
        int[] ids = receiveAll(peer, sent);
        // [FIRST, first 4112] (a shorter packet may end a GSO datagram), [14 x 4112, 1000] (15: the most that
        // fits 64 KiB), the heap packet alone, [600, 600]
        int[] want = {0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 0, 1};
        assertArrayEquals(want, ids, "the IP ID each packet's ICRC is for");
        assertEquals(3, w.counter(RxeNetCounter.GSO_DATAGRAMS));
        assertEquals(19, w.counter(RxeNetCounter.GSO_SEGMENTS));
        for (ByteBuf buf : bufs) {
            assertEquals(0, buf.refCnt(), "released once");
        }
        assertEquals(null, receive(peer) == null ? null : "more", "nothing else arrived");
    }

    /**
     * Hands {@code p} to the wire as a gathered packet: its first {@code hdr} bytes and its pad and ICRC (the last
     * {@code trailer} bytes) in a head buffer, the bytes between copied into {@code region} at {@code at}.
     */
    private static ByteBuf sendGathered(NettyWire w, InetAddress from, InetAddress to, byte[] p, int hdr, int trailer,
            java.nio.ByteBuffer region, int at) {
        int pay = p.length - hdr - trailer;
        region.put(at, p, hdr, pay);
        ByteBuf head = PacketPool.ALLOC.directBuffer(hdr + trailer, hdr + trailer);
        head.writeBytes(p, 0, hdr).writeBytes(p, hdr + pay, trailer);
        w.sendGathered(null, from, to, 0, head, hdr, region, at, pay);
        return head;
    }

    /**
     * Gathered packets (payload in a memory region, headers and ICRC in a head buffer) in a cork with whole ones:
     * the plain peer gets exactly the packets, in order, with the ICRC of each segment's IP ID, as if they had been
     * whole; the heads are released, the gathered ones are counted. Uncorked, a gathered packet is joined and sent.
     */
    @Test
    void gatheredPacketsLeaveAsTheWholePacketsWould() throws Exception {
        addresses();
        NettyWire w = wire(a, true, true, (p, s, d, port) -> p.release());
        Assumptions.assumeTrue(w.isGso() && w.gathers(), "no UDP GSO here");
        DatagramChannel peer = plainPeer(b);
        SplittableRandom rnd = new SplittableRandom(5);
        java.nio.ByteBuffer region = java.nio.ByteBuffer.allocateDirect(1 << 20);
        List<byte[]> sent = new ArrayList<>();
        List<ByteBuf> heads = new ArrayList<>();
        sent.add(packet(rnd, 4128)); // FIRST-like: 28 bytes of headers, gathered
        for (int i = 0; i < 15; i++) {
            sent.add(packet(rnd, 4112)); // 12 bytes of BTH; one of them whole
        }
        sent.add(packet(rnd, 1003)); // pad 1: 3 bytes of payload short of a multiple of 4
        w.cork();
        int at = 5;
        for (int i = 0; i < sent.size(); i++) {
            byte[] p = sent.get(i);
            if (i == 7) {
                ByteBuf whole = direct(p);
                heads.add(whole);
                w.send(null, a, b, 0, whole);
                continue;
            }
            int hdr = i == 0 ? 28 : 12;
            int trailer = i == 16 ? 5 : 4;
            heads.add(sendGathered(w, a, b, p, hdr, trailer, region, at));
            at += p.length + 1;
        }
        assertEquals(1, heads.get(0).refCnt(), "held until the uncork");
        w.uncork();
        int[] ids = receiveAll(peer, sent);
        int[] want = {0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
        assertArrayEquals(want, ids, "the IP ID each packet's ICRC is for");
        assertEquals(16, w.counter(RxeNetCounter.GATHERED));
        assertEquals(2, w.counter(RxeNetCounter.GSO_DATAGRAMS));
        for (ByteBuf h : heads) {
            assertEquals(0, h.refCnt(), "released once");
        }
        // not corked: joined, then sent as any packet
        byte[] lone = packet(rnd, 2000);
        ByteBuf head = sendGathered(w, a, b, lone, 12, 4, region, 0);
        assertArrayEquals(lone, receive(peer));
        assertEquals(0, head.refCnt());
        assertEquals(16, w.counter(RxeNetCounter.GATHERED), "joined, not gathered");
        assertEquals(null, receive(peer) == null ? null : "more", "nothing else arrived");
    }

    /**
     * Datagrams of one sendmmsg to two destinations, in turns, over several corks: the batch's datagram slots keep
     * the destination they were last set for (no new address array per datagram) and must change it when the
     * next datagram in that slot goes elsewhere. Each peer gets its own packets, in order.
     */
    @Test
    void eachDatagramGoesToItsOwnDestination() throws Exception {
        addresses();
        NettyWire w = wire(a, true, true, (p, s, d, port) -> p.release());
        Assumptions.assumeTrue(w.isGso(), "no UDP GSO here");
        InetAddress c = InetAddress.getByAddress(new byte[] {127, b.getAddress()[1], b.getAddress()[2], 3});
        DatagramChannel peerB = plainPeer(b);
        DatagramChannel peerC = plainPeer(c);
        SplittableRandom rnd = new SplittableRandom(6);
        List<byte[]> toB = new ArrayList<>();
        List<byte[]> toC = new ArrayList<>();
        for (int round = 0; round < 6; round++) {
            w.cork();
            for (int run = 0; run < 2 + round % 3; run++) {
                boolean b2 = (run + round) % 2 == 0;
                for (int i = 0; i < 3; i++) {
                    byte[] p = packet(rnd, 700);
                    (b2 ? toB : toC).add(p);
                    w.send(null, a, b2 ? b : c, 0, direct(p));
                }
            }
            w.uncork();
        }
        for (byte[] p : toB) {
            assertArrayEquals(tail(p), tail(receive(peerB)));
        }
        for (byte[] p : toC) {
            assertArrayEquals(tail(p), tail(receive(peerC)));
        }
        assertEquals(null, receive(peerB));
        assertEquals(null, receive(peerC));
    }

    /**
     * Wire to wire: a with GSO, b with GRO. b's receive thread gets each GSO datagram in one read (groReads) and
     * hands over exactly the packets a sent (segment k with the ICRC for ID k), in order, each released once.
     */
    @Test
    void aGroReadIsCutIntoThePacketsSent() throws Exception {
        addresses();
        NettyWire wa = wire(a, true, false, (p, s, d, port) -> p.release());
        NettyWire wb = wire(b, false, true, (p, s, d, port) -> {
            byte[] c = new byte[p.readableBytes()];
            p.getBytes(p.readerIndex(), c);
            p.release();
            assertEquals(a, s);
            assertEquals(PORT, port);
            got.add(c);
        });
        Assumptions.assumeTrue(wa.isGso() && wb.isGro(), "no UDP GSO/GRO here");
        SplittableRandom rnd = new SplittableRandom(2);
        List<byte[]> expect = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<byte[]> sent = new ArrayList<>();
            int n = 1 + rnd.nextInt(40);
            int len = 16 + rnd.nextInt(4100);
            for (int i = 0; i < n; i++) {
                sent.add(packet(rnd, i == n - 1 ? 16 + rnd.nextInt(len - 15) : len));
            }
            wa.cork();
            for (byte[] p : sent) {
                wa.send(null, a, b, 0, direct(p));
            }
            wa.uncork();
            // what the kernel's segments carry: the i-th packet of a datagram the ICRC of ID i
            int max = Math.min(EpollDgram.MAX_SEGMENTS, EpollDgram.MAX_PAYLOAD / len);
            for (int i = 0; i < n; i++) {
                expect.add(withId(sent.get(i), i % max));
            }
        }
        for (int i = 0; i < expect.size(); i++) {
            byte[] r = got.poll(5, TimeUnit.SECONDS);
            assertTrue(r != null, "packet " + i + " of " + expect.size());
            assertArrayEquals(expect.get(i), r, "packet " + i);
        }
        assertTrue(wb.counter(RxeNetCounter.GRO_READS) >= 10, "coalesced reads " + wb.counter(RxeNetCounter.GRO_READS));
        assertEquals(expect.size(), wb.counter(RxeNetCounter.RECEIVED));
        assertEquals(null, got.poll(100, TimeUnit.MILLISECONDS));
    }

    /**
     * Packets kept by their QPs hold every receive buffer of b's ring: further reads go into the bounce buffer and
     * their packets are copies (slots, not slices), still the packets sent, in order; nothing is allocated for good
     * and every slot comes back once the packets are released.
     */
    @Test
    void withEveryReceiveBufferHeldReadsBounceAndPacketsAreCopies() throws Exception {
        addresses();
        long slotsBefore = PacketPool.outstanding();
        List<ByteBuf> kept = java.util.Collections.synchronizedList(new ArrayList<>());
        NettyWire wa = wire(a, true, false, (p, s, d, port) -> p.release());
        NettyWire wb = wire(b, false, true, (p, s, d, port) -> {
            byte[] c = new byte[p.readableBytes()];
            p.getBytes(p.readerIndex(), c);
            kept.add(p); // as a QP's queue would, until an engine gets to it
            got.add(c);
        });
        Assumptions.assumeTrue(wa.isGso() && wb.isGro(), "no UDP GSO/GRO here");
        SplittableRandom rnd = new SplittableRandom(3);
        int rounds = RecvLoop.GRO_RING * (RecvLoop.GRO_CHUNK / RecvLoop.GRO_MAX) + 8; // more reads than the ring holds
        int n = 15;
        int len = 4000; // 60,000 bytes: one read each
        for (int round = 0; round < rounds; round++) {
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(packet(rnd, len));
            }
            wa.cork();
            for (byte[] p : sent) {
                wa.send(null, a, b, 0, direct(p));
            }
            wa.uncork();
            for (int i = 0; i < n; i++) {
                byte[] r = got.poll(5, TimeUnit.SECONDS);
                assertTrue(r != null, "round " + round + ", packet " + i);
                assertArrayEquals(withId(sent.get(i), i), r, "round " + round + ", packet " + i);
            }
        }
        // 8 reads more than the ring holds, 4 reads to a buffer: the bounce buffer filled twice at least
        assertTrue(wb.counter(RxeNetCounter.GRO_BOUNCED) >= 2, "turns to the bounce buffer: " + wb.counter(RxeNetCounter.GRO_BOUNCED));
        long copies = kept.stream().filter(p -> p.unwrap() == null).count();
        assertTrue(copies >= 8 * n, "packets copied out of the bounce buffer: " + copies);
        assertEquals((long) rounds * n, kept.size());
        kept.forEach(ByteBuf::release);
        assertEquals(slotsBefore, PacketPool.outstanding(), "every slot came back");
    }

    /** Switched off (as by -Djrdma.rxe.net.gso=false / gro=false): one datagram per packet, ICRCs untouched. */
    @Test
    void switchedOffEveryPacketIsADatagramOfItsOwn() throws Exception {
        addresses();
        NettyWire w = wire(a, false, false, (p, s, d, port) -> p.release());
        DatagramChannel peer = plainPeer(b);
        SplittableRandom rnd = new SplittableRandom(3);
        List<byte[]> sent = new ArrayList<>();
        w.cork();
        for (int i = 0; i < 8; i++) {
            byte[] p = packet(rnd, 2000);
            sent.add(p);
            w.send(null, a, b, 0, direct(p));
        }
        w.uncork();
        for (byte[] p : sent) {
            assertArrayEquals(p, receive(peer));
        }
        assertEquals(0, w.counter(RxeNetCounter.GSO_DATAGRAMS));
        assertTrue(!w.isGso() && !w.isGro());
    }

    /**
     * Packets sent through the wire's queue (the event loop) before a cork's flush are not overtaken: with the
     * channel's queue busy, the GSO datagram goes through the queue behind them. Gathered packets among them are
     * joined before the uncork returns: the region's bytes are overwritten right after, and the peer still gets
     * the bytes as they were.
     */
    @Test
    void aCorkedRunDoesNotOvertakeWhatIsQueued() throws Exception {
        addresses();
        NettyWire w = wire(a, true, true, (p, s, d, port) -> p.release());
        Assumptions.assumeTrue(w.isGso(), "no UDP GSO here");
        DatagramChannel peer = plainPeer(b);
        SplittableRandom rnd = new SplittableRandom(4);
        java.nio.ByteBuffer region = java.nio.ByteBuffer.allocateDirect(8192);
        List<byte[]> sent = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            // from this thread: one uncorked (sendto, or queued), then a corked run of 4
            byte[] p0 = packet(rnd, 1200);
            p0[0] = (byte) round;
            sent.add(p0);
            w.send(null, a, b, 0, direct(p0));
            w.cork();
            for (int i = 0; i < 4; i++) {
                byte[] p = packet(rnd, 1200);
                sent.add(p);
                if (i % 2 == 0) {
                    w.send(null, a, b, 0, direct(p));
                } else { // gathered: joined if it must wait in the queue, so the region may change right after
                    sendGathered(w, a, b, p, 12, 4, region, i * 1200);
                }
            }
            w.uncork();
            region.put(0, new byte[8192]);
        }
        for (int i = 0; i < sent.size(); i++) {
            byte[] r = receive(peer);
            assertTrue(r != null, "datagram " + i);
            assertArrayEquals(tail(sent.get(i)), tail(r), "datagram " + i + " in its place");
        }
    }
}
