package org.jrdma.sw.rdmavt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;

/** Send and receive WQEs keep what their WRs said: the SGEs (the first in fields), and each opcode's part. */
class WqeTest {
    private static Sge[] sges(int n) {
        Sge[] s = new Sge[n];
        for (int i = 0; i < n; i++) {
            s[i] = new Sge(0x8000_0000_0000_0000L + i * 0x1_0000_0001L, -1 - i, 0x80000000 | i);
        }
        return s;
    }

    private static void assertSges(Sge[] s, Wqe w) {
        assertEquals(s.length, w.numSge());
        long total = 0;
        for (int i = 0; i < s.length; i++) {
            assertEquals(s[i].addr(), w.sgeAddr(i));
            assertEquals(s[i].length(), w.sgeLength(i));
            assertEquals(s[i].lkey(), w.sgeLkey(i));
            total += s[i].length() & 0xffffffffL;
        }
        assertEquals(total, w.totalLength());
    }

    @Test
    void recvRingKeepsEverySgeThroughTakeAndResize() {
        RecvRing ring = new RecvRing(3, 4);
        ring.put(0, new RecvWr().wrId(10).sgList(sges(4)));
        ring.put(1, new RecvWr().wrId(11).sgList(sges(1)));
        ring.put(2, new RecvWr().wrId(12));
        RecvRing bigger = new RecvRing(5, 4);
        for (int i = 0; i < 3; i++) {
            bigger.copy(ring, i, (i + 4) % 5);
        }
        RecvWqe w = new RecvWqe(5);
        for (RecvRing r : new RecvRing[] {ring, bigger}) {
            int at = r == ring ? 0 : 4;
            r.get(at, w);
            assertEquals(10, w.wrId());
            assertSges(sges(4), w);
            r.get((at + 1) % r.size, w);
            assertEquals(11, r.wrId((at + 1) % r.size));
            assertSges(sges(1), w);
            r.get((at + 2) % r.size, w);
            assertSges(sges(0), w);
        }
        RecvRing one = new RecvRing(1, 1);
        one.put(0, new RecvWr().wrId(-1).sgList(sges(1)));
        RecvWqe w1 = new RecvWqe(1);
        one.get(0, w1);
        assertEquals(-1, w1.wrId());
        assertSges(sges(1), w1);
    }

    @Test
    void sendWqeKeepsEachOpcodesPart() {
        SendWqe w = new SendWqe(3, 0);
        assertFalse(w.isInline());
        assertEquals(0, w.inlineData().length);

        w.set(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sgList(sges(3)).remote(-2, 0x80000007)
                .immData(0x87654321).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.FENCE), false,
                null, null, null);
        assertEquals(WrOpcode.RDMA_WRITE_WITH_IMM, w.opcode());
        assertEquals(1, w.wrId());
        assertSges(sges(3), w);
        assertEquals(-2, w.remoteAddr());
        assertEquals(0x80000007, w.rkey());
        assertEquals(0x87654321, w.immData());
        assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.FENCE, w.sendFlags());
        assertTrue(w.signaled());
        assertEquals(-1, w.inlineLength());

        w.set(new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sgList(sges(1)).remote(8, 9)
                .compareAdd(Long.MIN_VALUE).swap(-3), false, null, null, null);
        assertSges(sges(1), w);
        assertEquals(8, w.remoteAddr());
        assertEquals(9, w.rkey());
        assertEquals(Long.MIN_VALUE, w.compareAdd());
        assertEquals(-3, w.swap());
        assertFalse(w.signaled());

        w.set(new SendWr().wrId(3).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(0x81234567), false, null, null,
                null);
        assertEquals(0x81234567, w.invalidateRkey());
        assertSges(sges(0), w);

        w.set(new SendWr().wrId(4).opcode(WrOpcode.SEND_WITH_IMM).sgList(sges(2)).remoteQpn(0xffffff)
                .remoteQkey(0x80000000).pkeyIndex(0xffff).immData(-5), true, null, null, null);
        assertEquals(0xffffff, w.remoteQpn());
        assertEquals(0x80000000, w.remoteQkey());
        assertEquals(0xffff, w.pkeyIndex());
        assertEquals(-5, w.immData());

        w.set(new SendWr().wrId(5).opcode(WrOpcode.BIND_MW).bindAddr(-9).bindLength(Long.MAX_VALUE).key(0x7f)
                .access(0x1f), false, null, null, null);
        assertEquals(-9, w.bindAddr());
        assertEquals(Long.MAX_VALUE, w.bindLength());
        assertEquals(0x7f, w.key());
        assertEquals(0x1f, w.access());

        w.set(new SendWr().wrId(6).opcode(WrOpcode.REG_MR).key(0x80).access(7), false, null, null, null);
        assertEquals(0x80, w.key());
        assertEquals(7, w.access());
    }

    @Test
    void inlineBufferOnlyWithMaxInline() {
        assertSame(new SendWqe(1, 0).inlineData(), new SendWqe(2, 0).inlineData());
        SendWqe w = new SendWqe(1, 64);
        assertEquals(64, w.inlineData().length);
        w.set(new SendWr().opcode(WrOpcode.SEND).sgList(new Sge(0, 40, 1)), false, null, null, null);
        w.inlined = true;
        assertEquals(40, w.inlineLength());
        w.set(new SendWr().opcode(WrOpcode.SEND).sgList(new Sge(0, 40, 1)), false, null, null, null);
        assertFalse(w.isInline()); // a new WR clears it
    }
}
