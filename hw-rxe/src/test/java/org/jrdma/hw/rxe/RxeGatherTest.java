package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;

/**
 * Gathered sends ({@link RxeGather}): with a wire that gathers, the requester leaves payloads of at least
 * {@link RxeGather#MIN_PAYLOAD} bytes that lie in one direct segment in the memory region, and computes the ICRC
 * over headers, region and pad. What reaches the wire must be the very packets the copying requester sends, ICRC
 * included: the same WRs on two devices, one with a gathering wire, give byte-identical packets, each with the
 * right ICRC.
 */
class RxeGatherTest {
    static final int PEER_QPN = 0x11;

    /** The packets of the same WRs from a device whose wire copies and from one whose wire gathers. */
    @Test
    void gatheredPacketsAreTheCopiedPacketsByteForByte() throws Exception {
        Assumptions.assumeTrue(RxeGather.ENABLED, "gathering switched off");
        List<RxeWireBed.Sent> copied = sendAll(false, null);
        int[] gathered = {0};
        List<RxeWireBed.Sent> viaGather = sendAll(true, gathered);
        assertEquals(copied.size(), viaGather.size());
        Icrc icrc = new Icrc();
        RxePacket p = new RxePacket();
        int payloadPackets = 0;
        for (int i = 0; i < copied.size(); i++) {
            RxeWireBed.Sent c = copied.get(i);
            RxeWireBed.Sent g = viaGather.get(i);
            assertArrayEquals(c.bytes(), g.bytes(), "packet " + i);
            io.netty.buffer.ByteBuf w = Unpooled.wrappedBuffer(g.bytes());
            int len = g.bytes().length;
            assertEquals(RxeXmit.icrc(icrc, w, 0, len, g.src(), g.dst(), g.srcPort()), Icrc.stored(w, 0, len),
                    "ICRC of packet " + i);
            p.decode(w);
            if (p.payloadLength() >= RxeGather.MIN_PAYLOAD) {
                payloadPackets++;
            }
        }
        // 5000: 4 of 1024 gathered, 904 copied; 4099: 4 gathered, 3 copied; 3500 over two SGEs (1500 + 2000): the
        // packets at 0 and 2048 lie in one segment, the one at 1024 spans both and is copied; SEND 2048: 2 gathered
        assertEquals(4 + 4 + 2 + 2, gathered[0], "gathered packets");
        assertEquals(4 + 4 + 3 + 2, payloadPackets, "packets with a payload of at least " + RxeGather.MIN_PAYLOAD);
    }

    /** Posts the WRs on a fresh device and returns every packet it sends (the first transmission of each). */
    private static List<RxeWireBed.Sent> sendAll(boolean gathering, int[] gathered) throws Exception {
        try (RxeWireBed bed = new RxeWireBed("10.9.0.1", "10.9.0.2", gathering)) {
            RxeWireBed.Side s = bed.side(QpType.RC, 1 << 16);
            SplittableRandom rnd = new SplittableRandom(7);
            for (int i = 0; i < s.buf.capacity(); i++) {
                s.buf.put(i, (byte) rnd.nextInt(256));
            }
            bed.connect(s, new RxeWireBed.Conn(PEER_QPN, 100, 200));
            long base = s.mr.iova();
            int lkey = s.mr.lkey();
            s.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sgList(new Sge(base + 3, 5000, lkey))
                    .remote(0x1000, 0x77));
            s.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sgList(new Sge(base + 8192, 4099, lkey))
                    .remote(0x9000, 0x77));
            s.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE)
                    .sgList(new Sge(base + 20000, 1500, lkey), new Sge(base + 30001, 2000, lkey)).remote(0x20000, 0x77));
            s.qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sgList(new Sge(base + 40000, 2048, lkey)));
            List<RxeWireBed.Sent> out = new ArrayList<>();
            // 5 + 5 + 4 + 2 packets
            for (int i = 0; i < 16; i++) {
                out.add(bed.next(2000));
            }
            assertEquals(RxeOpcode.RC_SEND_LAST, out.get(15).pkt().opcode());
            if (gathered != null) {
                gathered[0] = bed.wire.gathered.get();
            }
            assertTrue(gathering || bed.wire.gathered.get() == 0);
            return out;
        }
    }
}
