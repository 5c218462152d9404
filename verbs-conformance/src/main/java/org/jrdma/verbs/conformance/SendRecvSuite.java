package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SEND and SEND_WITH_IMM on RC, UC and UD; gather/scatter; signaled and unsignaled sends; solicited
 * events; inline data; SEND_WITH_INV.
 */
public abstract class SendRecvSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    /** The room a UD receive buffer keeps for the GRH. */
    static final int GRH = 40;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** A message of several path-MTU packets lands byte-exact; the bytes after it are untouched. */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void sendArrivesExactly(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        int len = 3 * p.mtu.bytes() + 123;
        Buf src = p.a.buf(len, LW).fill(1);
        Buf dst = p.b.buf(len + 64, LW).fillByte(0xee);
        p.b.postRecv(7, dst.sge());
        p.a.postSend(send(11, src.sge()));

        expectOk(p.a.scq, WcOpcode.SEND, 11);
        WorkCompletion wc = expectOk(p.b.rcq, WcOpcode.RECV, 7);
        assertEquals(len, wc.byteLen(), "byte_len");
        assertEquals(p.b.qp.qpNum(), wc.qpNum(), "qp_num");
        assertEquals(0, wc.wcFlags() & (WcFlags.WITH_IMM | WcFlags.WITH_INVALIDATE), "wc_flags");
        assertBytes(src.get(0, len), dst, 0, "payload");
        assertFilled(dst, len, 64, 0xee, "receive buffer after the message");
    }

    /** SEND_WITH_IMM carries the immediate (host order) and sets WITH_IMM; zero-length works too. */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void sendWithImmediate(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        Buf src = p.a.buf(100, LW).fill(2);
        Buf dst = p.b.buf(256, LW);
        p.b.postRecv(1, dst.sge(0, 128));
        p.b.postRecv(2, dst.sge(128, 128));
        p.a.postSend(chain(wr(10, WrOpcode.SEND_WITH_IMM, src.sge()).immData(0xdeadbeef),
                wr(11, WrOpcode.SEND_WITH_IMM).immData(0x01020304)));

        List<WorkCompletion> sent = poll(p.a.scq, 2);
        assertOk(sent.get(0), WcOpcode.SEND, 10);
        assertOk(sent.get(1), WcOpcode.SEND, 11);
        WorkCompletion r1 = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(100, r1.byteLen());
        assertTrue((r1.wcFlags() & WcFlags.WITH_IMM) != 0, "WITH_IMM in " + Completions.describe(r1));
        assertEquals(0xdeadbeef, r1.immData());
        assertBytes(src.get(0, 100), dst, 0, "payload");
        WorkCompletion r2 = expectOk(p.b.rcq, WcOpcode.RECV, 2);
        assertEquals(0, r2.byteLen(), "zero-length SEND_WITH_IMM");
        assertTrue((r2.wcFlags() & WcFlags.WITH_IMM) != 0, "WITH_IMM in " + Completions.describe(r2));
        assertEquals(0x01020304, r2.immData());
    }

    /**
     * UD: the receive buffer starts with 40 bytes of GRH room, byte_len counts them, src_qp names
     * the sender, the GRH flag says whether a GRH is there.
     */
    @Test
    void udSendWithGrhRoomAndSourceQp() {
        QpPair p = QpPair.ud(res);
        int len = Math.min(1000, p.mtu.bytes());
        Buf src = p.a.buf(len, LW).fill(3);
        Buf dst = p.b.buf(2 * (GRH + len + 16), LW).fillByte(0xee);
        int slot = GRH + len + 16;
        p.b.postRecv(1, dst.sge(0, slot));
        p.b.postRecv(2, dst.sge(slot, slot));
        p.a.postSend(chain(send(10, src.sge()).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey),
                wr(11, WrOpcode.SEND_WITH_IMM, src.sge(0, 10)).immData(0x7777).ud(p.a.ahToPeer(), p.b.qp.qpNum(),
                        p.qkey)));

        List<WorkCompletion> sent = poll(p.a.scq, 2);
        assertOk(sent.get(0), WcOpcode.SEND, 10);
        assertOk(sent.get(1), WcOpcode.SEND, 11);
        boolean grh = p.a.ahToPeer().attr().grh() != null;
        WorkCompletion r1 = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(GRH + len, r1.byteLen(), "UD byte_len includes the 40-byte GRH");
        assertEquals(p.a.qp.qpNum(), r1.srcQp(), "src_qp");
        assertEquals(p.b.qp.qpNum(), r1.qpNum(), "qp_num");
        assertEquals(grh, (r1.wcFlags() & WcFlags.GRH) != 0, "GRH flag (the AV " + (grh ? "has" : "has no")
                + " GRH) in " + Completions.describe(r1));
        if (p.a.dev.linkLayer(p.a.port) == LinkLayer.INFINIBAND) {
            assertEquals(p.a.dev.queryPort(p.a.port).lid(), r1.slid(), "slid: the sender's LID");
        }
        assertBytes(src.get(0, len), dst, GRH, "UD payload after the GRH room");
        assertFilled(dst, GRH + len, 16, 0xee, "after the payload");

        WorkCompletion r2 = expectOk(p.b.rcq, WcOpcode.RECV, 2);
        assertEquals(GRH + 10, r2.byteLen());
        assertEquals(p.a.qp.qpNum(), r2.srcQp(), "src_qp");
        assertTrue((r2.wcFlags() & WcFlags.WITH_IMM) != 0, "WITH_IMM");
        assertEquals(0x7777, r2.immData());
        assertBytes(src.get(0, 10), dst, slot + GRH, "UD payload with immediate");
    }

    /** A UD message must fit the path MTU: a longer one is refused at post or completes in error, and never arrives. */
    @Test
    void udMessageAboveMtuIsRefused() {
        QpPair p = QpPair.ud(res);
        int mtu = p.a.dev.queryPort(p.a.port).activeMtu().bytes();
        Buf src = p.a.buf(mtu + 1, LW);
        Buf dst = p.b.buf(GRH + mtu + 1, LW);
        p.b.postRecv(1, dst.sge());
        SendWr w = send(10, src.sge()).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey);
        try {
            p.a.postSend(w);
            WorkCompletion wc = poll1(p.a.scq);
            assertTrue(wc.status() != WcStatus.SUCCESS, "a UD send of MTU+1 bytes succeeded: " + Completions.describe(wc));
        } catch (PostException e) {
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertBadWr(e, w);
        }
        expectNone(p.b.rcq, 30);
    }

    /** A UD datagram with the wrong Q_Key is dropped silently: the receive stays posted. */
    @Test
    void udQkeyMismatchIsSilentlyDropped() {
        QpPair p = QpPair.ud(res);
        Buf src = p.a.buf(64, LW).fill(4);
        Buf dst = p.b.buf(2 * 128, LW);
        p.b.postRecv(1, dst.sge(0, 128));
        p.b.postRecv(2, dst.sge(128, 128));

        p.a.postSend(send(10, src.sge(0, 32)).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey ^ 0x5a5a));
        expectOk(p.a.scq, WcOpcode.SEND, 10); // the sender never hears of the drop
        expectNone(p.b.rcq, 100);

        p.a.postSend(send(11, src.sge(32, 32)).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey));
        expectOk(p.a.scq, WcOpcode.SEND, 11);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(GRH + 32, r.byteLen());
        assertBytes(src.get(32, 32), dst, GRH, "the datagram with the right Q_Key");
        expectNone(p.b.rcq, 20);
    }

    /** A remote Q_Key with the high bit set means "use the sending QP's own Q_Key" (IBTA 10.2.5). */
    @Test
    void udQkeyWithHighBitUsesTheQpQkey() {
        QpPair p = QpPair.ud(res);
        Buf src = p.a.buf(16, LW).fill(14);
        Buf dst = p.b.buf(64, LW);
        p.b.postRecv(1, dst.sge());
        p.a.postSend(send(10, src.sge()).ud(p.a.ahToPeer(), p.b.qp.qpNum(), 0x8000_0000));
        expectOk(p.a.scq, WcOpcode.SEND, 10);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(GRH + 16, r.byteLen());
        assertBytes(src.get(0, 16), dst, GRH, "payload");
    }

    /** Gather from three SGEs (direct and heap memory) and scatter into three of other sizes. */
    @Test
    void multiSgeGatherScatter() {
        QpPair p = QpPair.builder(res, QpType.RC).maxSge(3).build();
        Buf s1 = p.a.buf(2000, LW).fill(5);
        Buf s2 = p.a.heapBuf(10, LW).fill(6);
        Buf s3 = p.a.buf(4000, LW).fill(7);
        Buf d1 = p.b.heapBuf(700, LW).fillByte(0xee);
        Buf d2 = p.b.buf(2010, LW).fillByte(0xee);
        Buf d3 = p.b.heapBuf(1000, LW).fillByte(0xee);
        byte[] msg = Buf.concat(s1.get(5, 1000), s2.get(3, 1), s3.get(100, 2500));
        p.b.qp.postRecv(new org.jrdma.ib.core.RecvWr().wrId(1).sgList(d1.sge(), d2.sge(3, 2000), d3.sge()));
        p.a.postSend(send(2, s1.sge(5, 1000), s2.sge(3, 1), s3.sge(100, 2500)));

        expectOk(p.a.scq, WcOpcode.SEND, 2);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(msg.length, r.byteLen());
        assertBytes(Buf.slice(msg, 0, 700), d1, 0, "first receive SGE");
        assertFilled(d2, 0, 3, 0xee, "before the second receive SGE");
        assertBytes(Buf.slice(msg, 700, 2000), d2, 3, "second receive SGE");
        assertBytes(Buf.slice(msg, 2700, msg.length - 2700), d3, 0, "third receive SGE");
        assertFilled(d3, msg.length - 2700, 1000 - (msg.length - 2700), 0xee, "after the message");
    }

    /** With sq_sig_type REQ_WR only SIGNALED sends complete (the receiver sees all). */
    @Test
    void onlySignaledSendsComplete() {
        QpPair p = QpPair.rc(res);
        Buf src = p.a.buf(64, LW).fill(8);
        Buf dst = p.b.buf(4 * 64, LW);
        for (int i = 0; i < 4; i++) {
            p.b.postRecv(100 + i, dst.sge(64 * i, 64));
        }
        SendWr[] w = new SendWr[4];
        for (int i = 0; i < 4; i++) {
            w[i] = send(i, src.sge(0, 16 * (i + 1))).sendFlags(i % 2 == 1 ? SendFlags.SIGNALED : 0);
        }
        p.a.postSend(chain(w));

        List<WorkCompletion> recv = poll(p.b.rcq, 4);
        for (int i = 0; i < 4; i++) {
            assertOk(recv.get(i), WcOpcode.RECV, 100 + i);
            assertEquals(16 * (i + 1), recv.get(i).byteLen());
        }
        List<WorkCompletion> sent = poll(p.a.scq, 2);
        assertOk(sent.get(0), WcOpcode.SEND, 1);
        assertOk(sent.get(1), WcOpcode.SEND, 3);
        expectNone(p.a.scq, 50);
    }

    /** With sq_sig_type ALL_WR every send completes, SIGNALED or not. */
    @Test
    void sqSigAllCompletesEverySend() {
        QpPair p = QpPair.builder(res, QpType.RC).sigAll(true).build();
        Buf src = p.a.buf(64, LW).fill(9);
        Buf dst = p.b.buf(3 * 64, LW);
        for (int i = 0; i < 3; i++) {
            p.b.postRecv(100 + i, dst.sge(64 * i, 64));
        }
        p.a.postSend(chain(send(0, src.sge()).sendFlags(0), send(1, src.sge()).sendFlags(0),
                send(2, src.sge()).sendFlags(0)));
        List<WorkCompletion> sent = poll(p.a.scq, 3);
        for (int i = 0; i < 3; i++) {
            assertOk(sent.get(i), WcOpcode.SEND, i);
        }
        poll(p.b.rcq, 3);
    }

    /**
     * A CQ armed with SOLICITED is not woken by an unsolicited receive, and is woken by a SEND
     * with the SOLICITED flag.
     */
    @Test
    void solicitedEventWakesOnlyOnSolicitedSend() {
        AtomicInteger calls = new AtomicInteger();
        CompletionQueue rcq = res.cq(res.bed().b(), new CqInitAttr().cqe(16).compHandler(cq -> calls.incrementAndGet()));
        QpPair p = QpPair.builder(res, QpType.RC).cqsB(res.cq(res.bed().b(), 16, null), rcq).build();
        Buf src = p.a.buf(64, LW).fill(10);
        Buf dst = p.b.buf(128, LW);
        p.b.postRecv(1, dst.sge(0, 64));
        p.b.postRecv(2, dst.sge(64, 64));
        rcq.reqNotify(CqNotify.SOLICITED, false);

        p.a.postSend(send(10, src.sge()));
        expectOk(p.a.scq, WcOpcode.SEND, 10);
        expectOk(rcq, WcOpcode.RECV, 1);
        LockSupport.parkNanos(30_000_000L);
        assertEquals(0, calls.get(), "an unsolicited receive woke a CQ armed for SOLICITED");

        p.a.postSend(send(11, src.sge()).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        expectOk(p.a.scq, WcOpcode.SEND, 11);
        expectOk(rcq, WcOpcode.RECV, 2);
        awaitCount(calls, 1);
        LockSupport.parkNanos(20_000_000L);
        assertEquals(1, calls.get(), "the solicited receive woke the CQ exactly once");
    }

    static void awaitCount(AtomicInteger n, int expected) {
        long deadline = System.nanoTime() + Completions.TIMEOUT_MS * 1_000_000L;
        while (n.get() < expected) {
            if (System.nanoTime() - deadline > 0) {
                assertEquals(expected, n.get(), "completion handler calls");
            }
            LockSupport.parkNanos(100_000L);
        }
    }

    /** Inline data is taken at post time: overwriting the buffer right after the post changes nothing. */
    @Test
    void inlineDataIsTakenAtPostTime() {
        QpPair p = QpPair.builder(res, QpType.RC).maxInline(64).build();
        int max = p.a.qp.cap().maxInlineData();
        assumeTrue(max >= 16, "the device offers " + max + " bytes of inline data");
        int len = Math.min(max, 64);
        Buf src = p.a.buf(len, LW).fill(11);
        byte[] original = src.get(0, len);
        Buf dst = p.b.buf(len, LW);
        p.b.postRecv(1, dst.sge());
        p.a.postSend(send(2, src.sge()).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        src.fillByte(0xff);

        expectOk(p.a.scq, WcOpcode.SEND, 2);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(len, r.byteLen());
        assertBytes(original, dst, 0, "inline payload as it was at post time");

        // inline RDMA WRITE too
        Buf target = p.b.buf(len, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        src.fill(15);
        byte[] second = src.get(0, len);
        p.a.postSend(write(3, target.addr(0), target.rkey(), src.sge()).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        src.fillByte(0xff);
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 3);
        assertBytes(second, target, 0, "inline RDMA WRITE payload as it was at post time");
    }

    /** More inline bytes than max_inline_data: the post fails naming that WR; the WR before it runs. */
    @Test
    void inlineAboveMaxInlineDataIsRejected() {
        QpPair p = QpPair.builder(res, QpType.RC).maxInline(64).build();
        int max = p.a.qp.cap().maxInlineData();
        Buf src = p.a.buf(max + 1, LW).fill(12);
        Buf dst = p.b.buf(2 * (max + 1), LW);
        p.b.postRecv(1, dst.sge(0, max + 1));
        p.b.postRecv(2, dst.sge(max + 1, max + 1));
        int inline = SendFlags.SIGNALED | SendFlags.INLINE;
        SendWr ok = send(10, src.sge(0, max)).sendFlags(inline);
        SendWr bad = send(11, src.sge(0, max + 1)).sendFlags(inline);
        PostException e = assertPostFails(Errno.EINVAL, () -> p.a.postSend(chain(ok, bad)));
        assertBadWr(e, bad);

        expectOk(p.a.scq, WcOpcode.SEND, 10);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 1);
        assertEquals(max, r.byteLen());
        assertBytes(src.get(0, max), dst, 0, "the inline WR before the bad one");
        expectNone(p.b.rcq, 30);
        expectNone(p.a.scq, 1);
    }

    /**
     * SEND_WITH_INV invalidates a fast-registered MR at the responder: the receive completion
     * carries WITH_INVALIDATE and the key, and the key no longer works.
     */
    @Test
    void sendWithInvalidateKillsFastRegMr() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 4);
        ByteBuffer mem = ByteBuffer.allocateDirect(8192);
        int rkey = fastReg(p.b, fr, mem, 0x7700_0000_0000L, Access.LOCAL_WRITE | Access.REMOTE_WRITE);

        Buf src = p.a.buf(64, LW).fill(13);
        p.a.postSend(write(1, 0x7700_0000_0000L + 100, rkey, src.sge(0, 16)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        byte[] landed = new byte[16];
        mem.get(100, landed);
        assertEquals(java.util.Arrays.toString(src.get(0, 16)), java.util.Arrays.toString(landed),
                "write through the fast-registered key");

        Buf dst = p.b.buf(64, LW);
        p.b.postRecv(5, dst.sge());
        p.a.postSend(wr(2, WrOpcode.SEND_WITH_INV, src.sge(0, 32)).invalidateRkey(rkey));
        expectOk(p.a.scq, WcOpcode.SEND, 2);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV, 5);
        assertEquals(32, r.byteLen());
        assertTrue((r.wcFlags() & WcFlags.WITH_INVALIDATE) != 0, "WITH_INVALIDATE in " + Completions.describe(r));
        assertEquals(rkey, r.invalidateRkey(), "invalidate_rkey");
        assertBytes(src.get(0, 32), dst, 0, "SEND_WITH_INV payload");

        p.a.postSend(write(3, 0x7700_0000_0000L + 100, rkey, src.sge(0, 16)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 3);
    }
}
