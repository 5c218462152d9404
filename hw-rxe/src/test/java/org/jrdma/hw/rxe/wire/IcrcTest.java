package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.UdpFrame;
import org.junit.jupiter.api.Test;

class IcrcTest {
    private final Icrc icrc = new Icrc();

    /**
     * IPv6: 2001:db8::a port 55666 to 2001:db8::b port 4791, traffic class 0xb8, flow label 0x12345, hop limit
     * 64; RC SEND Only, SE, pad 3, FECN set, QPN 0x11, AckReq, PSN 0x123456, payload "hello". ICRC computed
     * independently (Python zlib over the rxe_icrc.c masking): 0x7dc30c4d, on the wire 4d 0c c3 7d.
     */
    private static final String IPV6_PACKET = "6b8123450020114020010db800000000000000000000000a20010db8000000000000"
            + "00000000000bd97212b70020000004b0ffff800000118012345668656c6c6f0000004d0cc37d";
    private static final int IPV6_ICRC = 0x7dc30c4d;

    @Test
    void seedIsCrcOfEightOnes() {
        CRC32 c = new CRC32();
        c.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        assertEquals(Icrc.RXE_SEED, (int) c.getValue() ^ 0xffffffff);
    }

    /** README: rc_pingpong.pcap frame 12 ends in 5c 3d cc 23; rxe's value is those bytes little-endian. */
    @Test
    void byteOrderOnTheWire() throws IOException {
        List<Pcap.Frame> frames = Pcap.read(TestVectors.path("roce/rc_pingpong.pcap"));
        UdpFrame r = Captures.roce(frames.get(11));
        ByteBuf b = Unpooled.wrappedBuffer(r.data);
        assertEquals("5c3dcc23", ByteBufUtil.hexDump(b, r.payloadOffset + r.length - 4, 4));
        assertEquals(0x23cc3d5c, icrc.ofIpPacket(b, r.ipOffset));
        assertEquals(0x23cc3d5c, Icrc.stored(b, r.payloadOffset, r.length));
        ByteBuf copy = Unpooled.copiedBuffer(b);
        Icrc.store(copy, r.payloadOffset, r.length, 0x23cc3d5c);
        assertEquals(b, copy);
    }

    @Test
    void ipv6Vector() {
        ByteBuf p = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(IPV6_PACKET));
        int len = p.getUnsignedShort(44) - 8;
        assertEquals(IPV6_ICRC, icrc.ofIpPacket(p, 0));
        assertEquals(IPV6_ICRC, Icrc.stored(p, 48, len));
        byte[] src = new byte[16];
        byte[] dst = new byte[16];
        p.getBytes(8, src);
        p.getBytes(24, dst);
        assertEquals(IPV6_ICRC, icrc.ipv6(src, dst, 55666, 4791, p, 48, len));
    }

    @Test
    void ipv6MaskedFieldsDoNotCount() {
        expectSame(IPV6_PACKET, p -> p.setInt(0, 0x60000000)); // traffic class and flow label
        expectSame(IPV6_PACKET, p -> p.setInt(0, 0x6fffffff));
        expectSame(IPV6_PACKET, p -> p.setByte(7, 1)); // hop limit
        expectSame(IPV6_PACKET, p -> p.setShort(46, 0x1234)); // UDP checksum
        expectSame(IPV6_PACKET, p -> p.setByte(48 + 4, 0x40)); // BECN instead of FECN
        expectSame(IPV6_PACKET, p -> p.setByte(48 + 4, 0x3f)); // resv6a
        expectDifferent(IPV6_PACKET, p -> p.setByte(23, 0xb)); // source address
        expectDifferent(IPV6_PACKET, p -> p.setShort(40, 55667)); // UDP source port
        expectDifferent(IPV6_PACKET, p -> p.setByte(48 + 8, 0x00)); // AckReq (resv7 byte is not masked)
        expectDifferent(IPV6_PACKET, p -> p.setByte(48 + 11, 0x57)); // PSN
        expectDifferent(IPV6_PACKET, p -> p.setByte(48 + 2, 0x7f)); // P_Key
        expectDifferent(IPV6_PACKET, p -> p.setByte(48 + 1, 0x30)); // SE
        expectDifferent(IPV6_PACKET, p -> p.setByte(48 + 12 + 7, 1)); // a pad byte
    }

    @Test
    void ipv4MaskedFieldsDoNotCount() throws IOException {
        UdpFrame r = Captures.roce(Pcap.read(TestVectors.path("roce/rc_pingpong.pcap")).get(11));
        String hex = ByteBufUtil.hexDump(r.data, r.ipOffset, r.data.length - r.ipOffset);
        int bth = r.payloadOffset - r.ipOffset;
        expectSame(hex, p -> p.setByte(1, 0xb8)); // TOS: DSCP + ECN
        expectSame(hex, p -> p.setByte(8, 1)); // TTL
        expectSame(hex, p -> p.setShort(10, 0)); // header checksum
        expectSame(hex, p -> p.setShort(26, 0xabcd)); // UDP checksum
        expectSame(hex, p -> p.setByte(bth + 4, 0xc0)); // FECN + BECN
        expectDifferent(hex, p -> p.setShort(4, p.getUnsignedShort(4) + 1)); // IP Identification
        expectDifferent(hex, p -> p.setShort(6, 0)); // DF flag
        expectDifferent(hex, p -> p.setByte(15, 99)); // source address
        expectDifferent(hex, p -> p.setShort(20, 50000)); // UDP source port
        expectDifferent(hex, p -> p.setByte(bth + 8, 0x00)); // AckReq
        expectDifferent(hex, p -> p.setByte(bth + 12, 0x42)); // payload
    }

    @Test
    void everyBufferKindGivesTheSameValue() {
        byte[] bytes = ByteBufUtil.decodeHexDump(IPV6_PACKET);
        ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        ByteBuf pooledHeap = PooledByteBufAllocator.DEFAULT.heapBuffer(bytes.length).writeBytes(bytes);
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, Unpooled.directBuffer(50).writeBytes(bytes, 0, 50));
        composite.addComponent(true, Unpooled.directBuffer(bytes.length - 50).writeBytes(bytes, 50, bytes.length - 50));
        ByteBuf offsetSlice = Unpooled.directBuffer(bytes.length + 9).writeZero(9).writeBytes(bytes).slice(9, bytes.length);
        for (ByteBuf b : new ByteBuf[] {Unpooled.wrappedBuffer(bytes), direct, pooled, pooledHeap, composite,
            offsetSlice}) {
            assertEquals(IPV6_ICRC, icrc.ofIpPacket(b, 0), b.toString());
        }
        direct.release();
        pooled.release();
        pooledHeap.release();
        composite.release();
    }

    @Test
    void tooShortIsAnArgumentError() {
        ByteBuf b = Unpooled.buffer(16).writeZero(16);
        assertThrows(IllegalArgumentException.class, () -> icrc.ipv4(1, 2, 3, Icrc.IPV4_DF, 4, 4791, b, 0, 15));
        assertThrows(IllegalArgumentException.class, () -> icrc.ofIpPacket(b, 0)); // version 0
    }

    private void expectSame(String hex, Consumer<ByteBuf> change) {
        assertEquals(compute(hex, p -> { }), compute(hex, change));
    }

    private void expectDifferent(String hex, Consumer<ByteBuf> change) {
        assertNotEquals(compute(hex, p -> { }), compute(hex, change));
    }

    private int compute(String hex, Consumer<ByteBuf> change) {
        ByteBuf p = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
        change.accept(p);
        return icrc.ofIpPacket(p, 0);
    }

    /**
     * A gathered packet (headers, then pad and ICRC, in a head buffer; the payload in a region's buffer, direct or
     * heap, at any index) has the ICRC of the same bytes laid end to end, over IPv4 (with any IP ID) and IPv6, for
     * every pad count; the region's own position and limit are untouched.
     */
    @Test
    void aGatheredPayloadGivesTheIcrcOfTheContiguousPacket() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        Icrc icrc = new Icrc();
        byte[] s6 = new byte[16];
        byte[] d6 = new byte[16];
        rnd.nextBytes(s6);
        rnd.nextBytes(d6);
        for (int round = 0; round < 200; round++) {
            int hdr = round % 3 == 0 ? 28 : 12;
            int pay = rnd.nextInt(4100);
            int pad = RxeWire.padFor(pay);
            int len = hdr + pay + pad + RxeWire.ICRC_BYTES;
            byte[] whole = new byte[len];
            for (int i = 0; i < hdr + pay; i++) {
                whole[i] = (byte) rnd.nextInt(256);
            }
            java.nio.ByteBuffer region = round % 2 == 0 ? java.nio.ByteBuffer.allocateDirect(8192)
                    : java.nio.ByteBuffer.allocate(8192);
            int at = rnd.nextInt(8192 - pay + 1);
            region.put(at, whole, hdr, pay);
            region.position(17).limit(4000);
            ByteBuf head = Unpooled.directBuffer(len - pay).writeBytes(whole, 0, hdr).writeBytes(whole, hdr + pay,
                    len - hdr - pay);
            ByteBuf w = Unpooled.wrappedBuffer(whole);
            int id = rnd.nextInt(65536);
            assertEquals(icrc.ipv4(0x7f000001, 0x7f000002, id, Icrc.IPV4_DF, 4791, 4791, w, 0, len),
                    icrc.ipv4(0x7f000001, 0x7f000002, id, Icrc.IPV4_DF, 4791, 4791, head, 0, hdr, region, at, pay, len),
                    "IPv4, payload " + pay);
            assertEquals(icrc.ipv6(s6, d6, 4791, 4791, w, 0, len),
                    icrc.ipv6(s6, d6, 4791, 4791, head, 0, hdr, region, at, pay, len), "IPv6, payload " + pay);
            // the next contiguous packet is not taken for a gathered one
            assertEquals(icrc.ipv4(1, 2, 0, Icrc.IPV4_DF, 4791, 4791, w, 0, len),
                    new Icrc().ipv4(1, 2, 0, Icrc.IPV4_DF, 4791, 4791, w, 0, len));
            assertEquals(17, region.position());
            assertEquals(4000, region.limit());
            head.release();
        }
    }
}
