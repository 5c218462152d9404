package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;

/** A posted receive, copied out of the caller's {@link RecvWr} into a preallocated slot. */
public final class RecvWqe {
    long wrId;
    int numSge;
    final long[] addr;
    final int[] length;
    final int[] lkey;

    public RecvWqe(int maxSge) {
        addr = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
    }

    void set(RecvWr wr) {
        wrId = wr.wrId();
        Sge[] s = wr.sgList();
        numSge = s.length;
        for (int i = 0; i < s.length; i++) {
            addr[i] = s[i].addr();
            length[i] = s[i].length();
            lkey[i] = s[i].lkey();
        }
    }

    void copyFrom(RecvWqe o) {
        wrId = o.wrId;
        numSge = o.numSge;
        System.arraycopy(o.addr, 0, addr, 0, o.numSge);
        System.arraycopy(o.length, 0, length, 0, o.numSge);
        System.arraycopy(o.lkey, 0, lkey, 0, o.numSge);
    }

    public long wrId() {
        return wrId;
    }

    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) {
            n += length[i] & 0xffffffffL;
        }
        return n;
    }
}
