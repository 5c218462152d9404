package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RDMA WRITE, WRITE_WITH_IMM and READ; what UC and UD refuse at post time; a 1 GiB transfer. */
public abstract class RdmaSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
    static final int RR = Access.REMOTE_READ;

    @Override
    protected abstract VerbsTestBed newTestBed();

    /** RDMA WRITE lands exactly where it was aimed; the responder sees no completion. */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void rdmaWrite(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        Buf src = p.a.buf(5000, LW).fill(21);
        Buf dst = p.b.buf(8192, RW).fillByte(0xee);
        p.a.postSend(write(1, dst.addr(100), dst.rkey(), src.sge()));

        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1); // byte_len is defined for READ and atomics only
        assertBytes(src.get(0, 5000), dst, 100, "written data");
        assertFilled(dst, 0, 100, 0xee, "before the target range");
        assertFilled(dst, 5100, 8192 - 5100, 0xee, "after the target range");
        expectNone(p.b.rcq, 20);
    }

    /**
     * RDMA WRITE_WITH_IMM places the data and consumes a receive, which completes as
     * RECV_RDMA_WITH_IMM with the immediate; the receive buffer itself is not written.
     */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void rdmaWriteWithImmediate(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        Buf src = p.a.buf(3000, LW).fill(22);
        Buf dst = p.b.buf(4096, RW).fillByte(0xee);
        Buf rbuf = p.b.buf(64, LW).fillByte(0xcc);
        p.b.postRecv(9, rbuf.sge());
        p.a.postSend(wr(1, WrOpcode.RDMA_WRITE_WITH_IMM, src.sge()).remote(dst.addr(1000), dst.rkey())
                .immData(0xcafe0001));

        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV_RDMA_WITH_IMM, 9);
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0, "WITH_IMM in " + Completions.describe(r));
        assertEquals(0xcafe0001, r.immData(), "imm_data");
        assertEquals(3000, r.byteLen(), "byte_len of RECV_RDMA_WITH_IMM");
        assertEquals(p.b.qp.qpNum(), r.qpNum());
        assertBytes(src.get(0, 3000), dst, 1000, "written data");
        assertFilled(rbuf, 0, 64, 0xcc, "the receive buffer of a WRITE_WITH_IMM");
    }

    /** RDMA READ from heap memory into direct memory (and back): byte-exact, byte_len set. */
    @Test
    void rdmaRead() {
        QpPair p = QpPair.rc(res);
        Buf remote = p.b.heapBuf(16384, RR).fill(23);
        Buf local = p.a.buf(12000, LW).fillByte(0xee);
        p.a.postSend(read(1, remote.addr(33), remote.rkey(), local.sge(500, 10000)));
        WorkCompletion wc = expectOk(p.a.scq, WcOpcode.RDMA_READ, 1);
        assertEquals(10000, wc.byteLen(), "byte_len of the RDMA READ completion");
        assertBytes(remote.get(33, 10000), local, 500, "read data");
        assertFilled(local, 0, 500, 0xee, "before the read");
        assertFilled(local, 10500, 1500, 0xee, "after the read");
        expectNone(p.b.rcq, 10);

        // scattered into three local SGEs, one of them heap memory
        Buf heap = p.a.heapBuf(100, LW);
        p.a.postSend(read(2, remote.addr(0), remote.rkey(), local.sge(0, 10), heap.sge(0, 100), local.sge(11000, 90)));
        expectOk(p.a.scq, WcOpcode.RDMA_READ, 2);
        assertBytes(remote.get(0, 10), local, 0, "first SGE");
        assertBytes(remote.get(10, 100), heap, 0, "second SGE");
        assertBytes(remote.get(110, 90), local, 11000, "third SGE");
    }

    /**
     * Zero-length RDMA WRITE, WRITE_WITH_IMM and READ carry no address or key worth checking
     * (IBTA C9-88): they succeed with rkey 0 and address 0.
     */
    @Test
    void zeroLengthRdmaNeedsNoKey() {
        QpPair p = QpPair.rc(res);
        Buf rbuf = p.b.buf(16, LW);
        p.b.postRecv(5, rbuf.sge());
        p.a.postSend(chain(write(1, 0, 0), read(2, 0, 0),
                wr(3, WrOpcode.RDMA_WRITE_WITH_IMM).remote(0, 0).immData(0x5151)));
        List<WorkCompletion> wcs = poll(p.a.scq, 3);
        assertOk(wcs.get(0), WcOpcode.RDMA_WRITE, 1);
        assertOk(wcs.get(1), WcOpcode.RDMA_READ, 2);
        assertEquals(0, wcs.get(1).byteLen());
        assertOk(wcs.get(2), WcOpcode.RDMA_WRITE, 3);
        WorkCompletion r = expectOk(p.b.rcq, WcOpcode.RECV_RDMA_WITH_IMM, 5);
        assertEquals(0, r.byteLen());
        assertEquals(0x5151, r.immData());
    }

    /** A FENCEd SEND waits for the RDMA READ before it: it sends the data the READ brought. */
    @Test
    void fencedSendFollowsRead() {
        QpPair p = QpPair.rc(res);
        Buf remote = p.b.buf(4096, RR).fill(25);
        Buf local = p.a.buf(4096, LW);
        Buf rbuf = p.b.buf(4096, LW);
        p.b.postRecv(7, rbuf.sge());
        p.a.postSend(chain(read(1, remote.addr(0), remote.rkey(), local.sge()).sendFlags(0),
                send(2, local.sge()).sendFlags(org.jrdma.ib.core.SendFlags.SIGNALED
                        | org.jrdma.ib.core.SendFlags.FENCE)));
        expectOk(p.a.scq, WcOpcode.SEND, 2);
        expectOk(p.b.rcq, WcOpcode.RECV, 7);
        assertBytes(remote.get(0, 4096), rbuf, 0, "the SEND carried what the READ brought");
    }

    /** RDMA READ does not exist on UC or UD: refused at post time, naming the WR. */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"UC", "UD"})
    void rdmaReadRejectedOnUnreliableQp(QpType type) {
        QpPair p = QpPair.builder(res, type).build();
        Buf local = p.a.buf(64, LW);
        Buf remote = p.b.buf(64, RW | RR);
        SendWr r = read(1, remote.addr(0), remote.rkey(), local.sge());
        if (type == QpType.UD) {
            r.ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey);
        }
        PostException e = assertPostFails(Errno.EINVAL, () -> p.a.postSend(r));
        assertBadWr(e, r);
        expectNone(p.a.scq, 20);
    }

    /** RDMA WRITE does not exist on UD. */
    @Test
    void rdmaWriteRejectedOnUd() {
        QpPair p = QpPair.ud(res);
        Buf local = p.a.buf(64, LW);
        Buf remote = p.b.buf(64, RW);
        SendWr w = write(1, remote.addr(0), remote.rkey(), local.sge()).ud(p.a.ahToPeer(), p.b.qp.qpNum(), p.qkey);
        assertBadWr(assertPostFails(Errno.EINVAL, () -> p.a.postSend(w)), w);
    }

    /**
     * 1 GiB in 1 MiB RDMA WRITEs, 16 in flight, byte-exact: every message's CRC32 at the
     * destination matches its source. The destination slot of each source slot rotates every
     * round, so a lost or misplaced write leaves a stale slot and is caught.
     */
    @Test
    void oneGibInOneMibMessages() {
        final int msg = 1 << 20;
        final int slots = 16;
        final int rounds = (1 << 30) / msg / slots;
        QpPair p = QpPair.builder(res, QpType.RC).maxSendWr(slots).cqe(4 * slots).build();
        Buf src = p.a.buf(slots * msg, LW).fill(24);
        Buf dst = p.b.buf(slots * msg, RW);
        long[] srcCrc = new long[slots];
        for (int s = 0; s < slots; s++) {
            srcCrc[s] = crc(src.bb, s * msg, msg);
        }
        SendWr[] w = new SendWr[slots];
        long bytes = 0;
        long verifyNanos = 0;
        long t0 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            for (int s = 0; s < slots; s++) {
                int d = (s + r) % slots;
                w[s] = write((long) r * slots + s, dst.addr(d * msg), dst.rkey(), src.sge(s * msg, msg));
            }
            p.a.postSend(chain(w));
            List<WorkCompletion> wcs = Completions.poll(p.a.scq, slots, 30_000);
            for (int s = 0; s < slots; s++) {
                assertOk(wcs.get(s), WcOpcode.RDMA_WRITE, (long) r * slots + s);
            }
            long v0 = System.nanoTime();
            for (int d = 0; d < slots; d++) {
                int s = ((d - r) % slots + slots) % slots;
                long got = crc(dst.bb, d * msg, msg);
                if (got != srcCrc[s]) {
                    assertEquals(srcCrc[s], got, "CRC32 of message " + ((long) r * slots + s) + " (round " + r
                            + ", source slot " + s + ", destination slot " + d + ")");
                }
            }
            verifyNanos += System.nanoTime() - v0;
            bytes += (long) slots * msg;
        }
        long total = System.nanoTime() - t0;
        assertEquals(1L << 30, bytes);
        System.out.printf("verbs-conformance: %s: 1 GiB RDMA WRITE in 1 MiB messages: %d ms total, %d ms moving"
                + " (%.2f GB/s), %d ms CRC32 verification%n", res.bed().a().driverName(), total / 1_000_000,
                (total - verifyNanos) / 1_000_000, bytes / (double) (total - verifyNanos), verifyNanos / 1_000_000);
    }

    static long crc(ByteBuffer bb, int off, int len) {
        CRC32 c = new CRC32();
        c.update(bb.slice(off, len));
        return c.getValue();
    }
}
