package org.jrdma.sw.rdmavt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;

import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.junit.jupiter.api.Test;

/** The CQ ring keeps every field of a completion, in order, through overflow and resize. */
class RvtCqTest {
    private int completions;
    private int overflows;

    private final CqContext ctx = new CqContext() {
        @Override
        public CompletionQueue cq() {
            return null;
        }

        @Override
        public void completion() {
            completions++;
        }

        @Override
        public void overflow() {
            overflows++;
        }
    };

    private static final QueuePair QP = (QueuePair) Proxy.newProxyInstance(RvtCqTest.class.getClassLoader(),
            new Class<?>[] {QueuePair.class}, (p, m, a) -> null);

    private static WorkCompletion widest(long wrId) {
        return new WorkCompletion().wrId(wrId).status(WcStatus.GENERAL_ERR).opcode(WcOpcode.RECV_RDMA_WITH_IMM)
                .vendorErr(0xdeadbeef).byteLen(-1).qp(QP).qpNum(0xffffff).immData(0x80000001).srcQp(0xfffffe)
                .wcFlags(WcFlags.GRH | WcFlags.WITH_IMM | WcFlags.IP_CSUM_OK | WcFlags.WITH_SMAC | WcFlags.WITH_VLAN
                        | WcFlags.WITH_NETWORK_HDR_TYPE)
                .pkeyIndex(0xffff).slid(0xfffe).sl(15).dlidPathBits(127).portNum(255);
    }

    private static void assertSameWc(WorkCompletion e, WorkCompletion a) {
        assertEquals(e.wrId(), a.wrId());
        assertEquals(e.status(), a.status());
        assertEquals(e.opcode(), a.opcode());
        assertEquals(e.vendorErr(), a.vendorErr());
        assertEquals(e.byteLen(), a.byteLen());
        assertSame(e.qp(), a.qp());
        assertEquals(e.qpNum(), a.qpNum());
        assertEquals(e.immData(), a.immData());
        assertEquals(e.invalidateRkey(), a.invalidateRkey());
        assertEquals(e.srcQp(), a.srcQp());
        assertEquals(e.wcFlags(), a.wcFlags());
        assertEquals(e.pkeyIndex(), a.pkeyIndex());
        assertEquals(e.slid(), a.slid());
        assertEquals(e.sl(), a.sl());
        assertEquals(e.dlidPathBits(), a.dlidPathBits());
        assertEquals(e.portNum(), a.portNum());
    }

    private static WorkCompletion[] out(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion().wrId(-7).immData(-7).invalidateRkey(-7).qp(QP); // stale values to overwrite
        }
        return w;
    }

    @Test
    void everyFieldAtItsWidestSurvives() {
        RvtCq cq = new RvtCq(ctx, 4);
        WorkCompletion imm = widest(Long.MIN_VALUE);
        WorkCompletion inv = widest(-1).wcFlags(WcFlags.WITH_INVALIDATE).immData(0).invalidateRkey(0xfedcba98)
                .opcode(WcOpcode.RECV).status(WcStatus.SUCCESS);
        WorkCompletion plain = new WorkCompletion().wrId(1);
        WorkCompletion none = new WorkCompletion().status(null).opcode(null);
        assertTrue(cq.post(imm, false));
        assertTrue(cq.post(inv, false));
        assertTrue(cq.post(plain, false));
        assertTrue(cq.post(none, false));
        WorkCompletion[] o = out(4);
        assertEquals(4, cq.poll(o, 4));
        assertSameWc(imm, o[0]);
        assertSameWc(inv, o[1]);
        assertSameWc(plain, o[2]);
        assertNull(o[3].status());
        assertNull(o[3].opcode());
    }

    @Test
    void everyStatusAndOpcodeSurvives() {
        RvtCq cq = new RvtCq(ctx, WcStatus.values().length * WcOpcode.values().length);
        for (WcStatus s : WcStatus.values()) {
            for (WcOpcode op : WcOpcode.values()) {
                assertTrue(cq.post(new WorkCompletion().status(s).opcode(op), false));
            }
        }
        WorkCompletion[] o = out(1);
        for (WcStatus s : WcStatus.values()) {
            for (WcOpcode op : WcOpcode.values()) {
                assertEquals(1, cq.poll(o, 1));
                assertEquals(s, o[0].status());
                assertEquals(op, o[0].opcode());
            }
        }
        assertEquals(0, cq.poll(o, 1));
    }

    @Test
    void overflowDropsAndCounts() {
        RvtCq cq = new RvtCq(ctx, 2);
        assertTrue(cq.post(new WorkCompletion().wrId(1), false));
        assertTrue(cq.post(new WorkCompletion().wrId(2), false));
        assertFalse(cq.post(new WorkCompletion().wrId(3), false));
        assertEquals(1, cq.overflows());
        assertEquals(1, overflows);
        assertEquals(2, cq.count());
        WorkCompletion[] o = out(4);
        assertEquals(2, cq.poll(o, 4));
        assertEquals(1, o[0].wrId());
        assertEquals(2, o[1].wrId());
    }

    @Test
    void resizeKeepsOrderAcrossTheWrap() {
        RvtCq cq = new RvtCq(ctx, 4);
        WorkCompletion[] o = out(4);
        for (int i = 0; i < 3; i++) {
            cq.post(new WorkCompletion().wrId(i), false);
        }
        assertEquals(3, cq.poll(o, 3));
        for (int i = 3; i < 7; i++) { // wraps: head at 3
            cq.post(widest(i), false);
        }
        VerbsException e = assertThrows(VerbsException.class, () -> cq.resize(3));
        assertEquals(Errno.EINVAL, e.errno());
        cq.resize(6);
        assertEquals(6, cq.cqe());
        cq.post(widest(7), false);
        cq.post(widest(8), false);
        assertFalse(cq.post(widest(9), false));
        WorkCompletion[] all = out(8);
        assertEquals(6, cq.poll(all, 8));
        for (int i = 0; i < 6; i++) {
            assertSameWc(widest(i + 3), all[i]);
        }
    }

    @Test
    void notifyOnNextAndOnSolicitedOrError() {
        RvtCq cq = new RvtCq(ctx, 8);
        cq.post(new WorkCompletion(), false);
        assertEquals(0, completions);
        assertTrue(cq.arm(CqNotify.NEXT_COMP, true)); // one is waiting
        cq.post(new WorkCompletion(), false);
        assertEquals(1, completions);
        cq.post(new WorkCompletion(), false);
        assertEquals(1, completions); // disarmed
        cq.arm(CqNotify.SOLICITED, false);
        cq.post(new WorkCompletion(), false);
        assertEquals(1, completions);
        cq.post(new WorkCompletion().status(WcStatus.REM_ACCESS_ERR), false);
        assertEquals(2, completions);
        cq.arm(CqNotify.SOLICITED, false);
        cq.post(new WorkCompletion(), true);
        assertEquals(3, completions);
    }
}
