package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;

/**
 * The slots of a receive queue (a QP's RQ or an SRQ), one array per field: with one SGE a slot is 25
 * bytes, where an object per slot would take 48. Its owner keeps head and count, under its own lock.
 */
final class RecvRing {
    final int size;
    private final int maxSge;
    private final long[] wrId;
    private final byte[] numSge;
    private final long[] addr;
    private final int[] length;
    private final int[] lkey;
    /** SGEs 1.. of every slot, packed as in {@link Wqe}: {@code 2 * (maxSge - 1)} longs a slot; null for one SGE. */
    private final long[] more;

    RecvRing(int size, int maxSge) {
        this.size = size;
        this.maxSge = maxSge;
        wrId = new long[size];
        numSge = new byte[size];
        addr = new long[size];
        length = new int[size];
        lkey = new int[size];
        more = maxSge > 1 ? new long[size * 2 * (maxSge - 1)] : null;
    }

    /** Copies {@code wr} into slot {@code i} (its SGE count was checked against max_sge). */
    void put(int i, RecvWr wr) {
        wrId[i] = wr.wrId();
        Sge[] s = wr.sgList();
        numSge[i] = (byte) s.length;
        for (int k = 0; k < s.length; k++) {
            setSge(i, k, s[k].addr(), s[k].length(), s[k].lkey());
        }
    }

    long wrId(int i) {
        return wrId[i];
    }

    /** Copies slot {@code i} into {@code into}, which has room for max_sge SGEs. */
    void get(int i, RecvWqe into) {
        into.wrId = wrId[i];
        into.numSge = numSge[i];
        for (int k = 0; k < numSge[i]; k++) {
            if (k == 0) {
                into.setSge(0, addr[i], length[i], lkey[i]);
            } else {
                int at = moreIndex(i, k);
                into.setSge(k, more[at], (int) (more[at + 1] >>> 32), (int) more[at + 1]);
            }
        }
    }

    /** Copies slot {@code from} of {@code o} (same max_sge) into slot {@code to} (an SRQ resize). */
    void copy(RecvRing o, int from, int to) {
        wrId[to] = o.wrId[from];
        numSge[to] = o.numSge[from];
        addr[to] = o.addr[from];
        length[to] = o.length[from];
        lkey[to] = o.lkey[from];
        if (more != null) {
            System.arraycopy(o.more, moreIndex(from, 1), more, moreIndex(to, 1), 2 * (maxSge - 1));
        }
    }

    private void setSge(int i, int k, long a, int len, int key) {
        if (k == 0) {
            addr[i] = a;
            length[i] = len;
            lkey[i] = key;
        } else {
            int at = moreIndex(i, k);
            more[at] = a;
            more[at + 1] = (long) len << 32 | key & 0xffffffffL;
        }
    }

    private int moreIndex(int i, int k) {
        return (i * (maxSge - 1) + k - 1) * 2;
    }
}
