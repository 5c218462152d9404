package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.junit.jupiter.api.Test;

/** Fast registration (allocMr, map, REG_MR, LOCAL_INV) and re-registration of user MRs. */
public abstract class FastRegSuite extends VerbsSuite {
    static final int LW = Access.LOCAL_WRITE;
    static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    static final long IOVA = 0x5a00_0000_0000L;
    static final long IOVA2 = 0x5b00_0000_1000L;

    @Override
    protected abstract VerbsTestBed newTestBed();

    static byte[] at(ByteBuffer bb, int off, int len) {
        byte[] b = new byte[len];
        bb.get(off, b);
        return b;
    }

    static void assertAt(byte[] expected, ByteBuffer bb, int off, String what) {
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(at(bb, off, expected.length)), what);
    }

    /** REG_MR with a new key byte: the MR takes the key, iova and length; WRITE and READ with it work. */
    @Test
    void fastRegisterThenRemoteAccess() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 4);
        ByteBuffer mem = ByteBuffer.allocateDirect(16384);
        int key = fastReg(p.b, fr, mem, IOVA, REMOTE);
        assertEquals(key, fr.rkey(), "rkey after REG_MR");
        assertEquals(IOVA, fr.iova(), "iova after REG_MR");
        assertEquals(16384, fr.length(), "length after REG_MR");

        Buf local = p.a.buf(2000, LW).fill(81);
        p.a.postSend(write(1, IOVA + 5000, key, local.sge(0, 1000)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertAt(local.get(0, 1000), mem, 5000, "written through the fast-registered key");
        p.a.postSend(read(2, IOVA + 5000, key, local.sge(1000, 1000)));
        expectOk(p.a.scq, WcOpcode.RDMA_READ, 2);
        assertBytes(local.get(0, 1000), local, 1000, "read back through the fast-registered key");

        // the new key is the lkey too: B sends from the fast-registered memory
        Buf rbuf = p.a.buf(64, LW);
        p.a.postRecv(3, rbuf.sge());
        p.b.postSend(send(4, new org.jrdma.ib.core.Sge(IOVA + 5000, 64, fr.lkey())));
        expectOk(p.b.scq, WcOpcode.SEND, 4);
        expectOk(p.a.rcq, WcOpcode.RECV, 3);
        assertBytes(local.get(0, 64), rbuf, 0, "sent from fast-registered memory");
    }

    /** map refuses more pages than the MR was allocated for. */
    @Test
    void mapBeyondMaxNumSgIsRefused() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 1);
        fr.map(ByteBuffer.allocateDirect(4096), IOVA);
        assertVerbsFails(org.jrdma.ib.core.Errno.EINVAL, () -> fr.map(ByteBuffer.allocateDirect(8192), IOVA));
        assertVerbsFails(org.jrdma.ib.core.Errno.EINVAL, () -> fr.map(ByteBuffer.allocateDirect(4096), IOVA + 8));
    }

    /** A user MR cannot be invalidated: LOCAL_INV of its key completes in error. */
    @Test
    void localInvalidateOfUserMrFails() {
        QpPair p = QpPair.rc(res);
        Buf mem = p.b.buf(64, REMOTE);
        p.b.postSend(new org.jrdma.ib.core.SendWr().wrId(9).opcode(org.jrdma.ib.core.WrOpcode.LOCAL_INV)
                .sendFlags(org.jrdma.ib.core.SendFlags.SIGNALED).invalidateRkey(mem.rkey()));
        WorkCompletion wc = poll1(p.b.scq);
        assertEquals(9, wc.wrId());
        assertTrue(wc.status() != WcStatus.SUCCESS, "LOCAL_INV of a user MR: " + Completions.describe(wc));
        awaitState(p.b.qp, org.jrdma.ib.core.QpState.ERR);
    }

    /** Before its first REG_MR a fast-registration MR grants nothing. */
    @Test
    void unregisteredFastRegMrGrantsNothing() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 4);
        fr.map(ByteBuffer.allocateDirect(4096), IOVA);
        Buf local = p.a.buf(64, LW);
        p.a.postSend(write(1, IOVA, fr.rkey(), local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 1);
    }

    /** LOCAL_INV makes the key fail with REM_ACCESS_ERR. */
    @Test
    void localInvalidateKillsTheKey() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 4);
        ByteBuffer mem = ByteBuffer.allocateDirect(8192);
        int key = fastReg(p.b, fr, mem, IOVA, REMOTE);
        Buf local = p.a.buf(64, LW).fill(82);
        p.a.postSend(write(1, IOVA, key, local.sge(0, 8)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);

        localInvalidate(p.b, key);
        p.a.postSend(write(2, IOVA + 8, key, local.sge(8, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 2);
        assertAt(new byte[8], mem, 8, "after LOCAL_INV nothing is written");
    }

    /** After LOCAL_INV the MR is registered again, over new memory with another key; the old key is dead. */
    @Test
    void reRegisterWithAnotherKey() {
        QpPair p = QpPair.rc(res);
        MemoryRegion fr = res.fastRegMr(p.b.pd, 4);
        ByteBuffer mem1 = ByteBuffer.allocateDirect(8192);
        ByteBuffer mem2 = ByteBuffer.allocate(12288);
        int key1 = fastReg(p.b, fr, mem1, IOVA, REMOTE);
        localInvalidate(p.b, key1);
        int key2 = fastReg(p.b, fr, mem2, IOVA2, REMOTE);
        assertEquals(key2, fr.rkey());
        assertEquals(key1 & 0xffffff00, key2 & 0xffffff00, "same MR index, new key byte");

        Buf local = p.a.buf(64, LW).fill(83);
        p.a.postSend(write(1, IOVA2 + 10000, key2, local.sge(0, 64)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertAt(local.get(0, 64), mem2, 10000, "written into the new mapping");

        p.a.postSend(write(2, IOVA, key1, local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 2);
        assertAt(new byte[8], mem1, 0, "the old mapping");
    }

    /** rereg of a user MR onto new memory keeps lkey and rkey; the new memory is what gets accessed. */
    @Test
    void reregUserMrKeepsKeysAndUsesNewMemory() {
        QpPair p = QpPair.rc(res);
        Buf old = p.b.buf(4096, REMOTE).fillByte(0xee);
        MemoryRegion mr = old.mr;
        int lkey = mr.lkey();
        int rkey = mr.rkey();
        ByteBuffer mem = ByteBuffer.allocateDirect(16384);
        mr.rereg(mem, IOVA2, REMOTE);
        assertEquals(lkey, mr.lkey(), "lkey after rereg");
        assertEquals(rkey, mr.rkey(), "rkey after rereg");
        assertEquals(IOVA2, mr.iova(), "iova after rereg");
        assertEquals(16384, mr.length(), "length after rereg");

        Buf local = p.a.buf(256, LW).fill(84);
        p.a.postSend(write(1, IOVA2 + 9000, rkey, local.sge(0, 128)));
        expectOk(p.a.scq, WcOpcode.RDMA_WRITE, 1);
        assertAt(local.get(0, 128), mem, 9000, "written into the re-registered memory");
        assertFilled(old, 0, 4096, 0xee, "the memory registered before");

        p.a.postSend(read(2, IOVA2 + 9000, rkey, local.sge(128, 128)));
        expectOk(p.a.scq, WcOpcode.RDMA_READ, 2);
        assertBytes(local.get(0, 128), local, 128, "read back");

        // and rereg can take rights away
        mr.rereg(mem, IOVA2, LW | Access.REMOTE_READ);
        p.a.postSend(write(3, IOVA2, rkey, local.sge(0, 8)));
        expectStatus(p.a.scq, WcStatus.REM_ACCESS_ERR, 3);
    }
}
