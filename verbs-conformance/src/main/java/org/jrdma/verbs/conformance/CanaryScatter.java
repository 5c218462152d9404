package org.jrdma.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;

import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.Sge;

/**
 * A receive WQE's scatter list over one registered buffer: a random number of SGEs of random lengths (some empty),
 * each with a gap of canary bytes before and after it; and what a message may have done to it: the SGE areas start
 * as {@link #UNWRITTEN}, a message fills them in order (the scatter stream), nothing may touch a gap.
 */
final class CanaryScatter {
    static final byte GAP = IsolationSuite.CANARY;
    static final byte UNWRITTEN = (byte) 0xee;
    static final int MAX_GAP = 16;

    final Buf buf;
    final int[] off;
    final int[] len;
    final int total;

    private CanaryScatter(Buf buf, int[] off, int[] len) {
        this.buf = buf;
        this.off = off;
        this.len = len;
        int t = 0;
        for (int l : len) {
            t += l;
        }
        this.total = t;
    }

    /** The buffer a scatter of up to {@code maxSge} SGEs and {@code maxTotal} bytes needs. */
    static int bufferSize(int maxSge, int maxTotal) {
        return maxTotal + (maxSge + 1) * MAX_GAP;
    }

    /** A random list of 0..maxSge SGEs (one in ten lists empty) of at most {@code maxTotal} bytes; fills the buffer. */
    static CanaryScatter random(Buf buf, Random r, int maxSge, int maxTotal) {
        int n = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(maxSge);
        int total = n == 0 ? 0 : r.nextInt(maxTotal + 1);
        int[] cuts = new int[n + 1];
        cuts[n] = total;
        for (int i = 1; i < n; i++) {
            cuts[i] = r.nextInt(total + 1);
        }
        if (n > 1) {
            java.util.Arrays.sort(cuts, 1, n);
        }
        int[] off = new int[n];
        int[] len = new int[n];
        int at = 1 + r.nextInt(MAX_GAP);
        for (int i = 0; i < n; i++) {
            off[i] = at;
            len[i] = cuts[i + 1] - cuts[i];
            at += len[i] + 1 + r.nextInt(MAX_GAP - 1);
        }
        buf.fillByte(GAP);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < len[i]; j++) {
                buf.bb.put(off[i] + j, UNWRITTEN);
            }
        }
        return new CanaryScatter(buf, off, len);
    }

    RecvWr recvWr(long wrId) {
        Sge[] sges = new Sge[off.length];
        for (int i = 0; i < sges.length; i++) {
            sges[i] = buf.sge(off[i], len[i]);
        }
        return new RecvWr().wrId(wrId).sgList(sges);
    }

    /**
     * Checks every byte of the buffer: gaps hold {@link #GAP}; stream position {@code s} of the SGEs (below
     * {@code free} anything goes: the GRH room of a UD receive) holds {@code stream[s]} if the message
     * {@code landed}, or past its end {@link #UNWRITTEN}; if it did not land, {@link #UNWRITTEN} or {@code stream[s]}
     * (a message that failed part way may have filled a prefix).
     */
    void check(byte[] stream, boolean landed, int free, String what) {
        int s = 0;
        int sge = 0;
        for (int p = 0; p < buf.size(); p++) {
            byte b = buf.bb.get(p);
            while (sge < off.length && p >= off[sge] + len[sge]) {
                sge++;
            }
            boolean inSge = sge < off.length && p >= off[sge];
            if (!inSge) {
                if (b != GAP) {
                    fail(what + ": canary byte " + p + " between SGEs is 0x" + Integer.toHexString(b & 0xff) + " "
                            + this);
                }
                continue;
            }
            int pos = s++;
            if (pos < free) {
                continue;
            }
            boolean inMsg = pos < stream.length;
            boolean ok = landed ? b == (inMsg ? stream[pos] : UNWRITTEN) : b == UNWRITTEN || inMsg && b == stream[pos];
            if (!ok) {
                fail(what + ": byte " + p + " (stream position " + pos + " of " + stream.length + ") is 0x"
                        + Integer.toHexString(b & 0xff) + " " + this);
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("scatter[");
        for (int i = 0; i < off.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(off[i]).append('+').append(len[i]);
        }
        return sb.append("] total ").append(total).toString();
    }
}
