package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.UdpFrame;
import org.junit.jupiter.api.Test;

/** The receive path (decode, field access, ICRC check) allocates nothing per packet. */
class AllocationFreeTest {

    @Test
    void decodeAndIcrcDoNotAllocate() throws IOException {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean tmx = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(tmx.isThreadAllocatedMemorySupported());
        tmx.setThreadAllocatedMemoryEnabled(true);

        // every captured RoCE packet, as the datagram content a Netty channel would hand over (pooled direct)
        List<ByteBuf> bufs = new ArrayList<>();
        List<int[]> addr = new ArrayList<>(); // src, dst, ip id, flags, sport, dport
        List<Path> pcaps;
        try (Stream<Path> s = Files.list(TestVectors.path("roce"))) {
            pcaps = s.filter(p -> p.toString().endsWith(".pcap"))
                    .filter(p -> !p.getFileName().toString().startsWith(GoldenCaptureTest.BAD_ICRC_CAPTURE)).sorted()
                    .collect(java.util.stream.Collectors.toList());
        }
        for (Path p : pcaps) {
            for (Pcap.Frame f : Pcap.read(p)) {
                UdpFrame r = Captures.roce(f);
                if (r != null) {
                    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(r.length);
                    b.writeBytes(r.data, r.payloadOffset, r.length);
                    bufs.add(b);
                    addr.add(new int[] {r.ipv4Src(), r.ipv4Dst(), r.ipv4Id(), r.ipv4FlagsFrag(), r.srcPort, r.dstPort});
                }
            }
        }
        assertEquals(GoldenCaptureTest.EXPECTED_TOTAL, bufs.size());
        ByteBuf[] packets = bufs.toArray(new ByteBuf[0]);
        int[][] a = addr.toArray(new int[0][]);
        RxePacket pkt = new RxePacket();
        Icrc icrc = new Icrc();

        long warm = run(packets, a, pkt, icrc, 200); // warm up (class loading, JIT)
        long before = tmx.getThreadAllocatedBytes(Thread.currentThread().getId());
        int rounds = 100;
        long sink = run(packets, a, pkt, icrc, rounds);
        long allocated = tmx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        long packetsRun = (long) rounds * packets.length;
        for (ByteBuf b : packets) {
            b.release();
        }
        assertEquals(200L * packets.length, warm >>> 32, "every packet decoded OK with a good ICRC");
        assertEquals(packetsRun, sink >>> 32, "every packet decoded OK with a good ICRC");
        System.out.printf("allocation: %d bytes over %d decodes + ICRC checks%n", allocated, packetsRun);
        // a few hundred bytes of noise (the counter call itself) at most; nothing per packet
        assertTrue(allocated < 4096, allocated + " bytes allocated for " + packetsRun + " packets");
    }

    private static long run(ByteBuf[] packets, int[][] a, RxePacket pkt, Icrc icrc, int rounds) {
        long good = 0;
        long acc = 0;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < packets.length; i++) {
                ByteBuf b = packets[i];
                if (pkt.decode(b) != RxeDecodeStatus.OK) {
                    continue;
                }
                int[] x = a[i];
                int crc = icrc.ipv4(x[0], x[1], x[2], x[3], x[4], x[5], b, pkt.bthOffset(), pkt.length());
                if (crc == pkt.icrc()) {
                    good++;
                }
                acc += pkt.psn() + pkt.qpn() + pkt.payloadLength();
                if (pkt.has(RxeMask.RETH)) {
                    acc += pkt.rethVa() + pkt.rethLen();
                }
                if (pkt.has(RxeMask.AETH)) {
                    acc += pkt.aethMsn() + Aeth.type(pkt.aethSyn()).ordinal();
                }
            }
        }
        return (good << 32) | (acc & 0xffffffffL);
    }
}
