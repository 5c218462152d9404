package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SignalType;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * What is destroyed stays dead (issue 17). Generations of a responder PD, its QP and a region with canaries: each
 * generation is torn down the way the API requires (region deregistered, QP destroyed, PD deallocated) and a new one
 * built; random RDMA WRITE/READ/atomics with the keys of dead generations' regions get REM_ACCESS_ERR and change no
 * byte, the live generation's key works. And a destroyed QP's number: datagrams and RC SENDs to it reach no other
 * QP, and it is not handed to the next QPs created (the drivers allocate QP numbers cyclically, as rxe's pool does
 * with {@code xa_alloc_cyclic}).
 */
public abstract class DestructionSuite extends VerbsSuite {
    static final int ALL_REMOTE = CrossPdSuite.ALL_REMOTE;
    static final int DEAD_KEPT = 8;
    static final int LW = Access.LOCAL_WRITE;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** PD generations per run. */
    protected int generations() {
        return 150;
    }

    @Test
    void keysOfADeallocatedPdGetNakAndChangeNothing() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        VerbsTestBed b = res.bed();
        ProtectionDomain pdA = res.pd(b.a());
        CompletionQueue[] cqs = {cq(b.a()), cq(b.a()), cq(b.b()), cq(b.b())};
        Buf src = res.buf(pdA, IsolationSuite.MAX + 64, LW).fill(seed);
        Buf local = res.buf(pdA, IsolationSuite.MAX + 2 * IsolationSuite.PAD, LW);
        List<IsolationSuite.Target> dead = new ArrayList<>();
        int deadTried = 0;
        for (int g = 0; g < generations(); g++) {
            ProtectionDomain pdB = res.pd(b.b());
            QpPair p = QpPair.builder(res, QpType.RC).pds(pdA, pdB).cqsA(cqs[0], cqs[1]).cqsB(cqs[2], cqs[3]).build();
            IsolationSuite.Target live = new IsolationSuite.Target(pdB, 8 + r.nextInt(IsolationSuite.MAX - 8),
                    ALL_REMOTE, r.nextLong());
            try {
                for (int k = 0; k < 3; k++) {
                    boolean old = !dead.isEmpty() && r.nextInt(3) != 0;
                    IsolationSuite.Target t = old ? dead.get(r.nextInt(dead.size())) : live;
                    // a dead key grants nothing, unless the driver handed the very same key to the live region
                    boolean grants = t == live || t.rkey == live.rkey;
                    IsolationSuite.Grant grant = new IsolationSuite.Grant(null, t.rkey, 0, grants ? t.size : 0,
                            grants ? ALL_REMOTE : 0);
                    IsolationSuite.runCase(p, src, local, t, grant, t.rkey, r, g * 3 + k);
                    deadTried += old ? 1 : 0;
                }
            } catch (AssertionError e) {
                fail("generation " + g + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
            // the teardown ib_dealloc_pd requires: nothing may use the PD any more (EBUSY until then)
            assertVerbsFails(Errno.EBUSY, pdB::dealloc);
            live.mr.dereg();
            p.b.qp.destroy();
            p.a.qp.destroy();
            pdB.dealloc();
            dead.add(live);
            if (dead.size() > DEAD_KEPT) {
                dead.remove(0);
            }
        }
        assertTrue(deadTried > generations(), "only " + deadTried + " dead keys tried (seed " + seed + ")");
    }

    /** Generations of the window test. */
    protected int windowGenerations() {
        return 40;
    }

    /** A dead generation's region and the keys that once reached it: the region's and its two windows'. */
    private record DeadKeys(IsolationSuite.Target target, int[] keys) {
    }

    /**
     * Memory windows (issue 17): each generation binds a type 1 and a type 2 window to random parts of a region of a
     * new responder PD, writes and reads through both, then tears down as {@code ib_dealloc_pd} requires: the PD
     * refuses with EBUSY naming what still uses it (windows, region, QP), then the windows go, the region, the QP and
     * the PD. Random operations of the next generations (a new PD and a new responder QP) with the dead windows' and
     * regions' keys get REM_ACCESS_ERR, and not a byte of the dead buffers (canaries included) changes.
     */
    @Test
    void windowKeysOfADeallocatedPdGetNakAndChangeNothing() {
        long seed = SendIsolationSuite.seed();
        Random r = new Random(seed);
        VerbsTestBed b = res.bed();
        ProtectionDomain pdA = res.pd(b.a());
        CompletionQueue[] cqs = {cq(b.a()), cq(b.a()), cq(b.b()), cq(b.b())};
        Buf src = res.buf(pdA, IsolationSuite.MAX + 64, LW).fill(seed);
        Buf local = res.buf(pdA, IsolationSuite.MAX + 2 * IsolationSuite.PAD, LW);
        List<DeadKeys> dead = new ArrayList<>();
        int deadTried = 0;
        for (int g = 0; g < windowGenerations(); g++) {
            ProtectionDomain pdB = res.pd(b.b());
            QpPair p = QpPair.builder(res, QpType.RC).pds(pdA, pdB).cqsA(cqs[0], cqs[1]).cqsB(cqs[2], cqs[3]).build();
            IsolationSuite.Target live = new IsolationSuite.Target(pdB, 64 + r.nextInt(IsolationSuite.MAX - 64),
                    ALL_REMOTE, r.nextLong());
            try {
                deadTried += tryDeadKeys(p, src, local, dead, live, r, g);
                MemoryWindow mw1 = p.b.pd.allocMw(MwType.TYPE_1);
                MemoryWindow mw2 = p.b.pd.allocMw(MwType.TYPE_2);
                int key1 = windowWorks(p, src, local, live, mw1, r, g * 10 + 1);
                int key2 = windowWorks(p, src, local, live, mw2, r, g * 10 + 2);
                // ib_dealloc_pd with users: EBUSY, and the message names them
                String busy = assertVerbsFails(Errno.EBUSY, pdB::dealloc).getMessage();
                assertTrue(busy.contains("2 MW") && busy.contains("1 MR") && busy.contains("1 QP"), busy);
                // ib_dereg_mr with windows bound: refused (EBUSY here; rxe_dereg_mr says EINVAL, IBA 10.6.7.2.6)
                assertVerbsFails(Errno.EBUSY, live.mr::dereg);
                mw1.dealloc();
                mw2.dealloc();
                busy = assertVerbsFails(Errno.EBUSY, pdB::dealloc).getMessage();
                assertTrue(!busy.contains("MW") && busy.contains("1 MR") && busy.contains("1 QP"), busy);
                live.mr.dereg();
                busy = assertVerbsFails(Errno.EBUSY, pdB::dealloc).getMessage();
                assertTrue(!busy.contains("MR") && busy.contains("1 QP"), busy);
                dead.add(new DeadKeys(live, new int[] {key1, key2, live.rkey}));
            } catch (AssertionError e) {
                fail("window generation " + g + " of seed " + seed + " (-Djrdma.isolation.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
            p.b.qp.destroy();
            p.a.qp.destroy();
            pdB.dealloc();
            if (dead.size() > DEAD_KEPT) {
                dead.remove(0);
            }
        }
        assertTrue(deadTried >= windowGenerations(), "only " + deadTried + " dead keys tried (seed " + seed + ")");
    }

    /** Up to three random dead keys on the live generation's QP pair; how many were tried. */
    private static int tryDeadKeys(QpPair p, Buf src, Buf local, List<DeadKeys> dead, IsolationSuite.Target live,
            Random r, int g) {
        int tried = 0;
        for (int k = 0; k < 3 && !dead.isEmpty(); k++) {
            DeadKeys d = dead.get(r.nextInt(dead.size()));
            int key = d.keys[r.nextInt(d.keys.length)];
            if (key == live.rkey) {
                continue; // the driver handed the very same key to the live region: it grants, rightly
            }
            IsolationSuite.Grant none = new IsolationSuite.Grant(null, key, 0, 0, 0);
            IsolationSuite.runCase(p, src, local, d.target, none, key, r, g * 10 + 5 + k);
            tried++;
        }
        return tried;
    }

    /**
     * Binds {@code mw} (BIND_MW on the responder's QP) to a random part of the live region with remote write and
     * read, writes random bytes through it and reads them back: both succeed, exactly those bytes change (the
     * region's canaries and the rest stay). Returns the window's key.
     */
    private static int windowWorks(QpPair p, Buf src, Buf local, IsolationSuite.Target t, MemoryWindow mw, Random r,
            long wrId) {
        int lo = r.nextInt(t.size - 8);
        int len = 8 + r.nextInt(Math.min(t.size - lo - 8, IsolationSuite.MAX - 8) + 1);
        int key = bindMw(p.b, mw, t.mr, t.iova + lo, len, Access.REMOTE_WRITE | Access.REMOTE_READ);
        byte[] expect = t.bytes();
        int srcOff = r.nextInt(64);
        System.arraycopy(src.get(srcOff, len), 0, expect, IsolationSuite.PAD + lo, len);
        p.a.postSend(write(wrId, t.iova + lo, key, src.sge(srcOff, len)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, wrId);
        assertArrayEquals(expect, t.bytes(), mw.type() + " window [" + lo + ", " + (lo + len) + "): WRITE");
        local.fillByte(0);
        p.a.postSend(read(wrId + 1, t.iova + lo, key, local.sge(0, len)));
        expectOk(p.a.scq, WcOpcode.RDMA_READ, wrId + 1);
        assertBytes(src.get(srcOff, len), local, 0, mw.type() + " window: READ back");
        return key;
    }

    private CompletionQueue cq(IbDevice d) {
        return res.cq(d, 256, new EventLog());
    }

    /** A UD QP in RTS on side {@code s}'s device and port, in its PD, completing into {@code rcq}. */
    private QueuePair udQp(Side s, CompletionQueue rcq, int qkey) {
        QueuePair qp = res.qp(s.pd, new QpInitAttr().qpType(QpType.UD).sendCq(s.scq).recvCq(rcq)
                .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1))
                .sqSigType(SignalType.REQ_WR));
        qp.modify(QpPair.initAttr(QpType.UD, s.port, 0, qkey));
        qp.modify(QpPair.rtrAttr(QpType.UD, null, null, 0, 0, 0, 0));
        qp.modify(QpPair.rtsAttr(QpType.UD, 0, 0, 0, 0, 0));
        return qp;
    }

    /**
     * UD: rounds of a victim QP that receives one datagram, is destroyed and replaced; then datagrams to its number
     * (right Q_Key) and a marker to a bystander: the marker is the only delivery, on any QP of the device.
     */
    @Test
    void datagramsToADestroyedQpnReachNoOtherQp() {
        QpPair p = QpPair.ud(res);
        Buf src = p.a.buf(64, LW).fill(7);
        Buf dst = p.b.buf(64 * 64, LW);
        CompletionQueue rcq = p.b.rcq;
        List<QueuePair> bystanders = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            QueuePair q = udQp(p.b, rcq, p.qkey);
            bystanders.add(q);
            for (int j = 0; j < 8; j++) {
                q.postRecv(new org.jrdma.ib.core.RecvWr().wrId(1000 + i).sgList(dst.sge(0, 64)));
            }
        }
        Set<Integer> destroyed = new HashSet<>();
        long wr = 1;
        for (int round = 0; round < 20; round++) {
            QueuePair victim = udQp(p.b, rcq, p.qkey);
            assertTrue(!destroyed.contains(victim.qpNum()), "QP number " + victim.qpNum() + " reused at once");
            victim.postRecv(new org.jrdma.ib.core.RecvWr().wrId(500 + round).sgList(dst.sge(64, 64)));
            p.a.postSend(send(wr, src.sge(0, 16)).ud(p.a.ahToPeer(), victim.qpNum(), p.qkey));
            expectOk(p.a.scq, WcOpcode.SEND, wr++);
            WorkCompletion got = expectOk(rcq, WcOpcode.RECV, 500 + round);
            assertEquals(victim.qpNum(), got.qpNum(), "the victim's own datagram");
            int gone = victim.qpNum();
            victim.destroy();
            destroyed.add(gone);
            QueuePair next = udQp(p.b, rcq, p.qkey);
            next.postRecv(new org.jrdma.ib.core.RecvWr().wrId(700 + round).sgList(dst.sge(128, 64)));
            assertTrue(!destroyed.contains(next.qpNum()), "QP number " + next.qpNum() + " reused at once");
            for (int i = 0; i < 4; i++) {
                p.a.postSend(send(wr, src.sge(0, 16)).ud(p.a.ahToPeer(), gone, p.qkey));
                expectOk(p.a.scq, WcOpcode.SEND, wr++);
            }
            // the marker: a bystander's datagram, sent after them on the same path, is the first thing to arrive
            QueuePair marker = bystanders.get(round % bystanders.size());
            p.a.postSend(send(wr, src.sge(0, 16)).ud(p.a.ahToPeer(), marker.qpNum(), p.qkey));
            expectOk(p.a.scq, WcOpcode.SEND, wr++);
            WorkCompletion m = poll1(rcq);
            assertEquals(marker.qpNum(), m.qpNum(), "round " + round + ": the first delivery after datagrams to "
                    + "destroyed QP " + gone + " is " + Completions.describe(m));
            assertEquals(WcStatus.SUCCESS, m.status());
            marker.postRecv(new org.jrdma.ib.core.RecvWr().wrId(1000 + round % bystanders.size())
                    .sgList(dst.sge(0, 64)));
            // its receive, still posted, is flushed (it received nothing) before it goes too
            next.modify(new QpAttr().state(QpState.ERR));
            expectFlushed(rcq, 700 + round);
            destroyed.add(next.qpNum());
            next.destroy();
        }
        expectNone(rcq, 30);
    }

    /**
     * RC: the responder QP destroyed, a new RC QP on its device waiting for exactly the requester's stream (its
     * path, QPN and PSN): the SEND to the old number ends RETRY_EXC_ERR and the new QP receives nothing.
     */
    @Test
    void sendToADestroyedRcQpnReachesNoOtherQp() {
        QpPair p = QpPair.builder(res, QpType.RC).timeout(8).retryCnt(3).build();
        Buf src = p.a.buf(64, LW).fill(8);
        Buf dst = p.b.buf(64, LW).fillByte(0xee);
        int gone = p.b.qp.qpNum();
        p.b.qp.destroy();
        QpPair q = QpPair.builder(res, QpType.RC).pds(p.a.pd, p.b.pd).connect(false).build();
        Side c = q.b;
        assertTrue(c.qp.qpNum() != gone, "QP number " + gone + " reused at once");
        q.toInit(c);
        c.qp.modify(QpPair.rtrAttr(QpType.RC, QpPair.av(res.bed(), c.port, p.a.dev, p.a.port), p.mtu,
                p.a.qp.qpNum(), QpPair.PSN_A_TO_B, QpPair.maxDestRdAtomic(c.dev), 1));
        c.postRecv(1, dst.sge());
        p.a.postSend(send(2, src.sge()));
        expectStatus(p.a.scq, WcStatus.RETRY_EXC_ERR, 2);
        expectNone(c.rcq, 20);
        assertFilled(dst, 0, 64, 0xee, "the new QP's receive buffer");
    }
}
