package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WrOpcode;

/**
 * A posted send, copied out of the caller's {@link SendWr} into a preallocated slot (so the caller
 * may reuse its WR at once); inline data is copied at post time. The retry fields belong to the
 * engine.
 */
public final class SendWqe {
    long wrId;
    WrOpcode opcode;
    int sendFlags;
    int immData;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    RvtAh ah;
    int remoteQpn;
    int remoteQkey;
    int pkeyIndex;
    RvtMr mr;
    int key;
    int access;
    RvtMw mw;
    long bindAddr;
    long bindLength;
    int numSge;
    final long[] addr;
    final int[] length;
    final int[] lkey;
    final byte[] inline;
    int inlineLength = -1;
    long totalLength;
    /** Engine state: retries left and when the next attempt may run. */
    int retriesLeft;
    int rnrRetriesLeft;
    long notBeforeNanos;

    SendWqe(int maxSge, int maxInline) {
        addr = new long[Math.max(maxSge, 1)];
        length = new int[Math.max(maxSge, 1)];
        lkey = new int[Math.max(maxSge, 1)];
        inline = new byte[maxInline];
    }

    void set(SendWr wr, RvtAh ah, RvtMr mr, RvtMw mw) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        sendFlags = wr.sendFlags();
        immData = wr.immData();
        invalidateRkey = wr.invalidateRkey();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        this.ah = ah;
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        pkeyIndex = wr.pkeyIndex();
        this.mr = mr;
        key = wr.key();
        access = wr.access();
        this.mw = mw;
        bindAddr = wr.bindAddr();
        bindLength = wr.bindLength();
        Sge[] s = wr.sgList();
        numSge = s.length;
        for (int i = 0; i < s.length; i++) {
            addr[i] = s[i].addr();
            length[i] = s[i].length();
            lkey[i] = s[i].lkey();
        }
        totalLength = wr.totalLength();
        inlineLength = -1;
        notBeforeNanos = 0;
    }

    public long wrId() {
        return wrId;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    /** UD: the address vector of the WR's address handle. */
    public org.jrdma.ib.core.AhAttr ahAttr() {
        return ah == null ? null : ah.attr;
    }

    public int remoteQpn() {
        return remoteQpn;
    }

    public int remoteQkey() {
        return remoteQkey;
    }

    public boolean signaled() {
        return (sendFlags & SendFlags.SIGNALED) != 0;
    }

    public boolean isInline() {
        return inlineLength >= 0;
    }

    public long totalLength() {
        return totalLength;
    }

    // ---- read-only accessors for packet engines outside this package (hw-rxe)

    public int sendFlags() {
        return sendFlags;
    }

    public int immData() {
        return immData;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    public long remoteAddr() {
        return remoteAddr;
    }

    public int rkey() {
        return rkey;
    }

    public long compareAdd() {
        return compareAdd;
    }

    public long swap() {
        return swap;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int numSge() {
        return numSge;
    }

    /** The gather list (first {@link #numSge()} entries are valid); do not modify. */
    public long[] sgeAddr() {
        return addr;
    }

    public int[] sgeLength() {
        return length;
    }

    public int[] sgeLkey() {
        return lkey;
    }

    /** Inline bytes copied at post time (first {@link #inlineLength()} are valid); do not modify. */
    public byte[] inlineData() {
        return inline;
    }

    public int inlineLength() {
        return inlineLength;
    }
}
