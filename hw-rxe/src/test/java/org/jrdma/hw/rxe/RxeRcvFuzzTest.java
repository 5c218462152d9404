package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.jrdma.testsupport.FuzzWatch;
import org.junit.jupiter.api.AfterAll;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.netty.buffer.ByteBuf;

/**
 * Jazzer: bytes as a UDP payload into {@link RxeDevice#rcv}, the whole receive path (rxe_rcv's checks, then the
 * responder or the completer of a live QP, and what they send), against the QPs of {@link RxeFuzzBed}. Input: a
 * control byte and a PSN delta ({@link RxeFuzzBed#aim}), then the packet; the ICRC is made right unless control
 * bit 5 is set. Per input: nothing is thrown, every packet is counted once (rcvd_pkts or rcvd_dropped), the
 * receive checks never fail internally, no QP hits an engine failure (QP_FATAL, logged), no thread dies, the
 * packet queues drain, the QP table stays at its size. Seeds: packets of the Linux captures
 * (src/test/resources/.../RxeRcvFuzzTestInputs/rcv), replayed by every {@code mvn verify}; {@code fuzz/run} fuzzes.
 */
class RxeRcvFuzzTest {
    private static RxeFuzzBed fb;
    private static int qps;
    private static FuzzWatch watch;

    private static RxeFuzzBed bed() throws Exception {
        if (fb == null) {
            watch = new FuzzWatch();
            fb = new RxeFuzzBed();
            qps = fb.bed.rxe.qpArray().length;
        }
        return fb;
    }

    @FuzzTest(maxDuration = "60s")
    void rcv(byte[] data) throws Exception {
        RxeFuzzBed f = bed();
        RxeDevice dev = f.bed.rxe;
        int c = data.length > 0 ? data[0] & 0xff : 0;
        int delta = data.length > 1 ? data[1] : 0;
        byte[] pkt = data.length > 2 ? Arrays.copyOfRange(data, 2, data.length) : new byte[0];
        ByteBuf aimed = f.aim(c, delta, pkt);
        long seen = f.bed.counter(RxeCounter.RCVD_PKTS) + f.bed.counter(RxeCounter.RCVD_DROPPED);
        long internal = dev.rcvInternalErrors();
        if ((c & 0x20) != 0) {
            f.bed.injectRaw(pkt, 50000);
        } else {
            f.bed.inject(pkt, 50000);
        }
        aimed.release();
        assertEquals(seen + 1, f.bed.counter(RxeCounter.RCVD_PKTS) + f.bed.counter(RxeCounter.RCVD_DROPPED),
                "the packet is counted once: received or dropped");
        assertEquals(internal, dev.rcvInternalErrors(), "the receive checks threw");
        RxeWireBed.await("the QPs' packet queues drain", () -> !f.queued());
        f.settle();
        List<String> failed = watch.take();
        assertTrue(failed.isEmpty(), () -> "engine failure or dead thread: " + failed);
        assertEquals(qps, dev.qpArray().length, "the QP table keeps its size");
        assertTrue(PacketPool.outstanding() < 4096, "packet slots in use: " + PacketPool.outstanding());
    }

    @AfterAll
    static void close() throws Exception {
        if (fb != null) {
            System.out.println("RxeRcvFuzzTest: " + fb.resets + " QP resets, counters " + fb.bed.rxe.counters());
            fb.close();
            fb = null;
            watch.close();
        }
        assertEquals(0, LeakCheck.collect(), "leaked buffers (Netty's detector, or packet slots not returned)");
    }
}
