package org.jrdma.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.Random;

import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.Sge;

/**
 * A registered buffer: the {@link ByteBuffer} a test reads and writes, and the MR over all of it
 * (byte {@code i} of {@link #bb} is at I/O virtual address {@code mr.iova() + i}).
 */
public final class Buf {
    public final ByteBuffer bb;
    public final MemoryRegion mr;

    Buf(ByteBuffer bb, MemoryRegion mr) {
        this.bb = bb;
        this.mr = mr;
    }

    public int size() {
        return bb.capacity();
    }

    public int lkey() {
        return mr.lkey();
    }

    public int rkey() {
        return mr.rkey();
    }

    /** The I/O virtual address of byte {@code off}. */
    public long addr(int off) {
        return mr.iova() + off;
    }

    public Sge sge(int off, int len) {
        return new Sge(addr(off), len, mr.lkey());
    }

    /** The whole buffer as one SGE. */
    public Sge sge() {
        return sge(0, size());
    }

    /** Fills the whole buffer with a pattern derived from {@code seed}. */
    public Buf fill(long seed) {
        bb.put(0, pattern(seed, size()));
        return this;
    }

    /** Sets every byte to {@code b}. */
    public Buf fillByte(int b) {
        for (int i = 0; i < size(); i++) {
            bb.put(i, (byte) b);
        }
        return this;
    }

    public byte[] get(int off, int len) {
        byte[] out = new byte[len];
        bb.get(off, out);
        return out;
    }

    public Buf put(int off, byte[] data) {
        bb.put(off, data);
        return this;
    }

    /** 8 bytes at {@code off}, big-endian (the byte order of IB atomics). */
    public long getLong(int off) {
        return bb.getLong(off);
    }

    public Buf putLong(int off, long v) {
        bb.putLong(off, v);
        return this;
    }

    /** Deterministic pseudo-random bytes. */
    public static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Copy of {@code len} bytes at {@code off} of {@code b}. */
    public static byte[] slice(byte[] b, int off, int len) {
        byte[] out = new byte[len];
        System.arraycopy(b, off, out, 0, len);
        return out;
    }

    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, off, p.length);
            off += p.length;
        }
        return out;
    }

    @Override
    public String toString() {
        return String.format("Buf{%s %d bytes, iova 0x%x, lkey 0x%x}", bb.isDirect() ? "direct" : "heap", size(),
                mr.iova(), mr.lkey());
    }
}
