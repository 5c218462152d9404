package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.UdpFrame;
import org.junit.jupiter.api.Test;

class IcrcIpv4SpanTest {
    private final Icrc icrc = new Icrc();

    /** Every IPv4 RoCE packet Linux rxe sent: the recovered ID is the one in the IP header. */
    @Test
    void recoversTheTrueIdOfEveryCapturedPacket() throws IOException {
        int checked = 0;
        int nonZero = 0;
        int notRoce = 0;
        for (UdpFrame r : ipv4Frames()) {
            ByteBuf b = Unpooled.wrappedBuffer(r.data);
            boolean validRoce = icrc.ofIpPacket(b, r.ipOffset) == Icrc.stored(b, r.payloadOffset, r.length);
            int id = IcrcIpv4Span.recoverId(icrc, r.ipv4Src(), r.ipv4Dst(), r.ipv4FlagsFrag(), r.srcPort, r.dstPort, b,
                    r.payloadOffset, r.length);
            if (!validRoce) { // host_to_guest_udp.pcap: a plain datagram, not RoCE
                notRoce++;
                assertEquals(IcrcIpv4Span.INCONSISTENT, id, "frame " + r.number);
                continue;
            }
            assertEquals(r.ipv4Id(), id, "frame " + r.number);
            assertEquals(Icrc.IPV4_DF, r.ipv4FlagsFrag());
            checked++;
            if (id != 0) {
                nonZero++;
            }
        }
        System.out.printf("IcrcIpv4Span: recovered the true IP ID of %d IPv4 RoCE packets (%d non-zero), "
                + "%d non-RoCE datagram(s) rejected%n", checked, nonZero, notRoce);
        assertTrue(checked > 600, "checked " + checked);
        assertTrue(nonZero > checked / 2);
    }

    /** Every ID, a couple of lengths: the ICRC computed with that ID gives the ID back. */
    @Test
    void everyIdRoundTrips() throws IOException {
        UdpFrame r = ipv4Frames().get(0);
        for (int len : new int[] {16, 28, 92, 1052, 4000, 65507}) {
            ByteBuf b = Unpooled.buffer(len).writeZero(len);
            b.setBytes(0, r.data, r.payloadOffset, Math.min(len, r.length) - 4);
            int c0 = icrc.ipv4(r.ipv4Src(), r.ipv4Dst(), 0, Icrc.IPV4_DF, r.srcPort, 4791, b, 0, len);
            for (int id = 0; id < 0x10000; id += len == 92 ? 1 : 97) {
                int c = icrc.ipv4(r.ipv4Src(), r.ipv4Dst(), id, Icrc.IPV4_DF, r.srcPort, 4791, b, 0, len);
                assertEquals(id, IcrcIpv4Span.recoverId(c0, c, len), "len " + len + " id " + id);
            }
        }
    }

    /**
     * The sender's side: the ICRC for IP ID {@code id} is the one for ID 0 XOR {@code idDelta(id, length)} (what
     * a GSO datagram's segment k, which the kernel sends with ID k, must carry), directly and through the
     * per-length cache.
     */
    @Test
    void idDeltaTurnsTheId0IcrcIntoTheOneOfAnyId() {
        SplittableRandom rnd = new SplittableRandom(7);
        IcrcIpv4Span.IdDeltas cache = new IcrcIpv4Span.IdDeltas();
        for (int len : new int[] {16, 28, 92, 1040, 4112, 4128, 9000, 65507}) {
            ByteBuf b = Unpooled.buffer(len).writeZero(len);
            for (int i = 0; i < len - 4; i++) {
                b.setByte(i, rnd.nextInt(256));
            }
            int c0 = icrc.ipv4(0x7f0a0b01, 0x7f0a0b02, 0, Icrc.IPV4_DF, 4791, 4791, b, 0, len);
            for (int id = 0; id < 0x10000; id += id < 70 ? 1 : 997) {
                int c = icrc.ipv4(0x7f0a0b01, 0x7f0a0b02, id, Icrc.IPV4_DF, 4791, 4791, b, 0, len);
                assertEquals(c, c0 ^ IcrcIpv4Span.idDelta(id, len), "len " + len + " id " + id);
                assertEquals(c, c0 ^ cache.of(id, len), "cached, len " + len + " id " + id);
                assertEquals(id, IcrcIpv4Span.recoverId(c0, c0 ^ IcrcIpv4Span.idDelta(id, len), len));
            }
        }
    }

    /**
     * Random single-byte corruptions of the ICRC-covered, unmasked bytes (IP header except version/IHL, TOS,
     * ID, TTL, checksum; UDP ports; BTH except byte 4; everything after; the ICRC itself) of every captured
     * IPv4 RoCE packet. Expected false-accept rate ~2^-16.
     */
    @Test
    void singleByteCorruptionsAreRejected() throws IOException {
        List<UdpFrame> frames = new ArrayList<>();
        for (UdpFrame r : ipv4Frames()) {
            ByteBuf b = Unpooled.wrappedBuffer(r.data);
            if (icrc.ofIpPacket(b, r.ipOffset) == Icrc.stored(b, r.payloadOffset, r.length)) {
                frames.add(r);
            }
        }
        SplittableRandom rnd = new SplittableRandom(0x1c2c);
        int trials = Integer.getInteger("jrdma.span.trials", 200_000);
        int accepted = 0;
        for (int t = 0; t < trials; t++) {
            UdpFrame r = frames.get(rnd.nextInt(frames.size()));
            byte[] d = r.data.clone();
            int ip = r.ipOffset;
            int end = r.payloadOffset + r.length; // exclusive; includes the ICRC bytes
            int pos;
            do {
                pos = ip + rnd.nextInt(end - ip);
            } while (!corruptible(pos - ip, pos - r.udpOffset, pos - r.payloadOffset));
            d[pos] ^= (byte) (1 + rnd.nextInt(255));
            ByteBuf b = Unpooled.wrappedBuffer(d);
            b.setShort(ip + 4, 0); // what a UDP socket cannot see: compute with ID 0
            int c0 = icrc.ofIpPacket(b, ip);
            if (IcrcIpv4Span.recoverId(c0, Icrc.stored(b, r.payloadOffset, r.length), r.length) >= 0) {
                accepted++;
            }
        }
        double rate = (double) accepted / trials;
        System.out.printf("IcrcIpv4Span: %d of %d single-byte corruptions accepted (%.5f%%, 2^-16 = %.5f%%)%n",
                accepted, trials, rate * 100, 100.0 / 65536);
        // Not uniform: nearly all accepts are at the one weak distance (IP byte 121, 15 of 255 values there, see
        // the exhaustive test); with this seed 22 of 200k = 7.2 * 2^-16. Bound: 16 * 2^-16.
        assertTrue(rate < 16.0 / 65536, "false-accept rate " + rate);
    }

    /**
     * Exhaustive: every unmasked covered byte of the longest captured packet, every non-zero XOR value. The
     * acceptance is not uniform: it depends only on the byte's distance from the ID field, and a few distances
     * are "weak" (some 8-bit error there equals a 16-bit ID change mod the CRC polynomial).
     */
    @Test
    void exhaustiveSingleByteCorruptionsOfTheLongestPacket() throws IOException {
        UdpFrame r = null;
        for (UdpFrame f : ipv4Frames()) {
            ByteBuf b = Unpooled.wrappedBuffer(f.data);
            if ((r == null || f.length > r.length) && icrc.ofIpPacket(b, f.ipOffset) == Icrc.stored(b, f.payloadOffset,
                    f.length)) {
                r = f;
            }
        }
        int ip = r.ipOffset;
        int end = r.payloadOffset + r.length;
        long total = 0;
        long accepted = 0;
        StringBuilder weak = new StringBuilder();
        byte[] d = r.data.clone();
        ByteBuf b = Unpooled.wrappedBuffer(d);
        for (int pos = ip; pos < end; pos++) {
            if (!corruptible(pos - ip, pos - r.udpOffset, pos - r.payloadOffset)) {
                continue;
            }
            int here = 0;
            for (int e = 1; e < 256; e++) {
                byte orig = d[pos];
                d[pos] ^= (byte) e;
                int savedId = b.getUnsignedShort(ip + 4);
                b.setShort(ip + 4, 0);
                int c0 = icrc.ofIpPacket(b, ip);
                if (IcrcIpv4Span.recoverId(c0, Icrc.stored(b, r.payloadOffset, r.length), r.length) >= 0) {
                    here++;
                }
                b.setShort(ip + 4, savedId);
                d[pos] = orig;
                total++;
            }
            if (here > 0) {
                // distance = CRC input bytes between the end of the ID field and this byte
                weak.append(String.format(" [IP byte %d, %d bytes after the ID: %d/255]", pos - ip, pos - ip - 6, here));
            }
            accepted += here;
        }
        System.out.printf("IcrcIpv4Span exhaustive, %d-byte UDP payload: %d of %d single-byte corruptions accepted "
                + "(%.5f%%); weak positions:%s%n", r.length, accepted, total, 100.0 * accepted / total, weak);
        assertTrue((double) accepted / total < 4.0 / 65536);
    }

    @Test
    void allocationFree() throws IOException {
        UdpFrame r = ipv4Frames().get(5);
        ByteBuf b = Unpooled.directBuffer(r.length).writeBytes(r.data, r.payloadOffset, r.length);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 20_000; i++) { // warm up
            sink += IcrcIpv4Span.recoverId(icrc, r.ipv4Src(), r.ipv4Dst(), Icrc.IPV4_DF, r.srcPort, r.dstPort, b, 0,
                    r.length);
        }
        // A per-call allocation would show up as >= 1.6 MB in every round; JIT/OSR activity in this thread can
        // allocate a few KB once, so take the best of several rounds.
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                sink += IcrcIpv4Span.recoverId(icrc, r.ipv4Src(), r.ipv4Dst(), Icrc.IPV4_DF, r.srcPort, r.dstPort, b,
                        0, r.length);
            }
            best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(520_000L * r.ipv4Id(), sink);
        assertTrue(best < 1024, best + " bytes allocated for 100000 checks (best of 5 rounds)");
        b.release();
    }

    private static boolean corruptible(int inIp, int inUdp, int inBth) {
        if (inUdp < 0) { // IPv4 header
            return inIp != 0 && inIp != 1 && inIp != 4 && inIp != 5 && inIp != 8 && inIp != 10 && inIp != 11;
        }
        if (inBth < 0) { // UDP header: ports only (length changes the framing, checksum is masked)
            return inUdp < 4;
        }
        return inBth != 4; // BTH FECN/BECN/resv6a masked
    }

    private static List<UdpFrame> ipv4Frames() throws IOException {
        List<UdpFrame> out = new ArrayList<>();
        List<Path> pcaps = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(TestVectors.path("roce"), "*.pcap")) {
            ds.forEach(pcaps::add);
        }
        pcaps.sort(null);
        for (Path p : pcaps) {
            for (Pcap.Frame f : Pcap.read(p)) {
                UdpFrame r = Captures.roce(f);
                if (r != null && r.ipVersion == 4) {
                    out.add(r);
                }
            }
        }
        return out;
    }
}
