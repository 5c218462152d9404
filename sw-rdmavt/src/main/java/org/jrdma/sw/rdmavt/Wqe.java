package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.Sge;

/**
 * What a send and a receive WQE share: the WR id and the scatter/gather list. Most WRs carry one
 * SGE, so the first is kept in plain fields; SGEs 1.. go to an array that exists only when the queue
 * allows more than one.
 */
public abstract class Wqe {
    long wrId;
    byte numSge;
    long addr0;
    int length0;
    int lkey0;
    /** SGEs 1..: per SGE its address, then its length (high 32 bits) and lkey (low 32 bits); null for one SGE. */
    private final long[] more;

    Wqe(int maxSge) {
        more = maxSge > 1 ? new long[2 * (maxSge - 1)] : null;
    }

    public long wrId() {
        return wrId;
    }

    public int numSge() {
        return numSge;
    }

    /** Address of SGE {@code i} ({@code i < numSge()}). */
    public long sgeAddr(int i) {
        return i == 0 ? addr0 : more[2 * i - 2];
    }

    /** Length of SGE {@code i}, unsigned. */
    public int sgeLength(int i) {
        return i == 0 ? length0 : (int) (more[2 * i - 1] >>> 32);
    }

    public int sgeLkey(int i) {
        return i == 0 ? lkey0 : (int) more[2 * i - 1];
    }

    /** Total bytes of the gather list. */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) {
            n += sgeLength(i) & 0xffffffffL;
        }
        return n;
    }

    /** Copies the SGEs of a WR (its count was checked against the queue's max_sge). */
    final void setSges(Sge[] s) {
        numSge = (byte) s.length;
        for (int i = 0; i < s.length; i++) {
            setSge(i, s[i].addr(), s[i].length(), s[i].lkey());
        }
    }

    final void setSge(int i, long addr, int length, int lkey) {
        if (i == 0) {
            addr0 = addr;
            length0 = length;
            lkey0 = lkey;
        } else {
            more[2 * i - 2] = addr;
            more[2 * i - 1] = (long) length << 32 | lkey & 0xffffffffL;
        }
    }
}
