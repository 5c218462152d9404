package org.jrdma.sw.rdmavt;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;

/**
 * A scatter or gather list resolved to memory: every SGE's key, PD, bounds and rights are checked
 * by {@code resolve*} before {@link #copy} moves a byte ({@code copy_data} in rxe). Reusable and
 * allocation-free: one instance per engine thread and role.
 */
public final class Segments {
    final ByteBuffer[] buf;
    final int[] off;
    final int[] len;
    int n;
    long total;

    public Segments(int capacity) {
        buf = new ByteBuffer[capacity];
        off = new int[capacity];
        len = new int[capacity];
    }

    public long total() {
        return total;
    }

    /** Number of resolved segments. */
    public int count() {
        return n;
    }

    /** The memory of segment {@code i} (absolute indexes; do not move its position or limit). */
    public ByteBuffer buffer(int i) {
        return buf[i];
    }

    /** Byte offset of segment {@code i} in {@link #buffer(int)}. */
    public int offset(int i) {
        return off[i];
    }

    /** Length of segment {@code i}. */
    public int length(int i) {
        return len[i];
    }

    /** Drops the first {@code bytes} bytes of the resolved list (the GRH room of a UD receive). */
    public void skip(int bytes) {
        int i = 0;
        int left = bytes;
        while (left > 0 && i < n) {
            int d = Math.min(left, len[i]);
            off[i] += d;
            len[i] -= d;
            left -= d;
            total -= d;
            if (len[i] == 0) {
                i++;
            }
        }
        if (i > 0) {
            int k = 0;
            for (int j = i; j < n; j++, k++) {
                buf[k] = buf[j];
                off[k] = off[j];
                len[k] = len[j];
            }
            n = k;
        }
    }

    private MemError add(RvtMr mr, long addr, int length) {
        if (n == buf.length) {
            return MemError.OUT_OF_BOUNDS;
        }
        buf[n] = mr.buffer();
        off[n] = mr.offset(addr);
        len[n] = length;
        n++;
        total += length & 0xffffffffL;
        return MemError.NONE;
    }

    /**
     * The SGEs of a WQE (lkeys in {@code pd}): the gather list of a send, or the scatter list of a
     * receive. {@code need} is LOCAL_WRITE for memory the operation writes.
     */
    public MemError resolveLocal(KeyTable keys, RvtPd pd, Wqe w, int need) {
        n = 0;
        total = 0;
        for (int i = 0; i < w.numSge; i++) {
            int length = w.sgeLength(i);
            if (length == 0) {
                continue;
            }
            RvtMem m = keys.lookup(w.sgeLkey(i));
            if (!(m instanceof RvtMr)) {
                return MemError.BAD_KEY;
            }
            RvtMr mr = (RvtMr) m;
            long addr = w.sgeAddr(i);
            MemError e = mr.check(pd, addr, length & 0xffffffffL, need);
            if (e != MemError.NONE) {
                return e;
            }
            e = add(mr, addr, length);
            if (e != MemError.NONE) {
                return e;
            }
        }
        return MemError.NONE;
    }

    /** The SGEs of a receive WQE, which the responder writes into. */
    public MemError resolveRecv(KeyTable keys, RvtPd pd, RecvWqe w) {
        return resolveLocal(keys, pd, w, Access.LOCAL_WRITE);
    }

    /**
     * A remote range under an rkey, as the responder QP {@code qp} sees it: an MR of its PD, or a
     * window bound to it (type 2) or to its PD (type 1). {@code need} is REMOTE_READ, REMOTE_WRITE
     * or REMOTE_ATOMIC.
     */
    public MemError resolveRemote(KeyTable keys, RvtQp qp, long addr, long length, int rkey, int need) {
        n = 0;
        total = 0;
        if (length == 0) {
            return MemError.NONE; // IBTA C9-88: a zero-length RDMA READ/WRITE validates neither R_Key nor VA
        }
        RvtMem m = keys.lookup(rkey);
        if (m == null) {
            return MemError.BAD_KEY;
        }
        if (m instanceof RvtMw) {
            RvtMw mw = (RvtMw) m;
            MemError e = mw.check(qp, addr, length, need);
            if (e != MemError.NONE) {
                return e;
            }
            return add(mw.mr(), addr, (int) length); // windows use the MR's iovas (no ZERO_BASED windows)
        }
        RvtMr mr = (RvtMr) m;
        MemError e = mr.check(qp.pd, addr, length, need);
        if (e != MemError.NONE) {
            return e;
        }
        return add(mr, addr, (int) length);
    }

    /** Wraps a byte array (inline data) as the only segment. */
    public void wrap(ByteBuffer data, int length) {
        n = 0;
        total = 0;
        if (length > 0) {
            buf[0] = data;
            off[0] = 0;
            len[0] = length;
            n = 1;
            total = length;
        }
    }

    /** Copies {@code bytes} from {@code src} to {@code dst}, both resolved; no checks left to do. */
    public static void copy(Segments src, Segments dst, long bytes) {
        int si = 0;
        int so = 0;
        int di = 0;
        int dOff = 0;
        long left = bytes;
        while (left > 0) {
            int chunk = (int) Math.min(left, Math.min(src.len[si] - so, dst.len[di] - dOff));
            dst.buf[di].put(dst.off[di] + dOff, src.buf[si], src.off[si] + so, chunk);
            left -= chunk;
            so += chunk;
            dOff += chunk;
            if (so == src.len[si]) {
                si++;
                so = 0;
            }
            if (dOff == dst.len[di]) {
                di++;
                dOff = 0;
            }
        }
    }

    /** The 8 bytes at segment 0 (an atomic's target), big-endian as IB atomics are. */
    public long getLong() {
        return buf[0].getLong(off[0]);
    }

    public void putLong(long v) {
        buf[0].putLong(off[0], v);
    }

    /** Writes an 8-byte value into a resolved local list (an atomic's result). */
    public void putLongScattered(long v) {
        for (int i = 0, shift = 56; i < n; i++) {
            for (int j = 0; j < len[i]; j++, shift -= 8) {
                buf[i].put(off[i] + j, (byte) (v >>> shift));
            }
        }
    }
}
