package org.jrdma.sw.rdmavt;

import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcFlags;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.jrdma.ib.core.spi.DriverCq;

/**
 * A completion queue ({@code rxe_cq.c}): a fixed ring of completions, so posting and polling allocate
 * nothing. When full, a completion is dropped and CQ_ERR raised, as rxe's {@code rxe_cq_post} does on
 * overflow.
 * <p>The ring stores the fields of a {@link WorkCompletion} in primitive arrays (40 bytes a CQE, where
 * a {@link WorkCompletion} object per entry took 80 and its slot in the array 4 more): {@link #post}
 * copies a completion in, {@link #poll} copies it out into the caller's object.
 */
public final class RvtCq implements DriverCq {
    private static final int DISARMED = 0;
    private static final int NEXT = 1;
    private static final int SOLICITED = 2;

    final CqContext ctx;
    private Ring ring;
    private int head;
    private int count;
    private int armed;
    private long overflows;

    RvtCq(CqContext ctx, int cqe) {
        this.ctx = ctx;
        this.ring = new Ring(cqe);
    }

    @Override
    public synchronized int cqe() {
        return ring.size;
    }

    /**
     * Posts a copy of {@code wc}. Runs the completion handler (outside the CQ lock) if the CQ is
     * armed for it: any completion for NEXT_COMP; a solicited or failed one for SOLICITED.
     *
     * @return false if the CQ overflowed (the completion is lost, CQ_ERR was raised)
     */
    public boolean post(WorkCompletion wc, boolean solicited) {
        boolean posted;
        boolean notify = false;
        synchronized (this) {
            posted = count < ring.size;
            if (posted) {
                ring.put((head + count) % ring.size, wc);
                count++;
                notify = armed == NEXT
                        || armed == SOLICITED && (solicited || wc.status() != WcStatus.SUCCESS);
                if (notify) {
                    armed = DISARMED;
                }
            } else {
                overflows++;
            }
        }
        if (!posted) {
            ctx.overflow();
        } else if (notify) {
            ctx.completion();
        }
        return posted;
    }

    synchronized int poll(WorkCompletion[] out, int max) {
        int n = 0;
        while (n < max && count > 0) {
            ring.get(head, out[n++]);
            head = (head + 1) % ring.size;
            count--;
        }
        return n;
    }

    synchronized boolean arm(CqNotify type, boolean reportMissed) {
        // SOLICITED does not weaken an armed NEXT_COMP
        if (type == CqNotify.NEXT_COMP || armed != NEXT) {
            armed = type == CqNotify.NEXT_COMP ? NEXT : SOLICITED;
        }
        return reportMissed && count > 0;
    }

    synchronized void resize(int cqe) {
        if (cqe < count) {
            throw new VerbsException(Errno.EINVAL, "resizeCq: " + count + " completions do not fit in " + cqe);
        }
        Ring r = new Ring(cqe);
        for (int i = 0; i < count; i++) {
            r.copyFrom(ring, (head + i) % ring.size, i);
        }
        ring = r;
        head = 0;
    }

    public synchronized int count() {
        return count;
    }

    public synchronized long overflows() {
        return overflows;
    }

    /**
     * The CQEs, in parallel arrays: 40 bytes a CQE. The fields of a {@link WorkCompletion} keep the
     * widths IB gives them: QPNs 24 bits, P_Key index and SLID 16, SL, DLID path bits, port and the
     * flags that exist 8; status and opcode are stored as ordinals. Immediate data and the invalidated
     * rkey share a word, as in the kernel's {@code ib_wc} ({@link WcFlags#WITH_INVALIDATE} tells which).
     */
    private static final class Ring {
        private static final WcStatus[] STATUS = WcStatus.values();
        private static final WcOpcode[] OPCODE = WcOpcode.values();
        private static final int NONE = 0xff;

        final int size;
        final long[] wrId;
        final QueuePair[] qp;
        final int[] byteLen;
        /** immData, or invalidateRkey with WITH_INVALIDATE. */
        final int[] ex;
        final int[] vendorErr;
        /** qpNum (bits 0-23), srcQp (24-47), pkeyIndex (48-63). */
        final long[] qpns;
        /** status (bits 0-7), opcode (8-15), wcFlags (16-23), sl (24-31), dlidPathBits (32-39), portNum (40-47), slid (48-63). */
        final long[] misc;

        Ring(int n) {
            size = n;
            wrId = new long[n];
            qp = new QueuePair[n];
            byteLen = new int[n];
            ex = new int[n];
            vendorErr = new int[n];
            qpns = new long[n];
            misc = new long[n];
        }

        void put(int i, WorkCompletion wc) {
            wrId[i] = wc.wrId();
            qp[i] = wc.qp();
            byteLen[i] = wc.byteLen();
            ex[i] = (wc.wcFlags() & WcFlags.WITH_INVALIDATE) != 0 ? wc.invalidateRkey() : wc.immData();
            vendorErr[i] = wc.vendorErr();
            qpns[i] = (wc.qpNum() & 0xffffffL) | (wc.srcQp() & 0xffffffL) << 24 | (wc.pkeyIndex() & 0xffffL) << 48;
            misc[i] = (wc.status() == null ? NONE : wc.status().ordinal())
                    | (long) (wc.opcode() == null ? NONE : wc.opcode().ordinal()) << 8
                    | (wc.wcFlags() & 0xffL) << 16 | (wc.sl() & 0xffL) << 24 | (wc.dlidPathBits() & 0xffL) << 32
                    | (wc.portNum() & 0xffL) << 40 | (wc.slid() & 0xffffL) << 48;
        }

        void get(int i, WorkCompletion out) {
            long m = misc[i];
            long q = qpns[i];
            int flags = (int) (m >>> 16) & 0xff;
            boolean inv = (flags & WcFlags.WITH_INVALIDATE) != 0;
            int status = (int) m & 0xff;
            int opcode = (int) (m >>> 8) & 0xff;
            out.wrId(wrId[i]).qp(qp[i]).byteLen(byteLen[i]).immData(inv ? 0 : ex[i]).invalidateRkey(inv ? ex[i] : 0)
                    .vendorErr(vendorErr[i]).qpNum((int) q & 0xffffff).srcQp((int) (q >>> 24) & 0xffffff)
                    .pkeyIndex((int) (q >>> 48)).status(status == NONE ? null : STATUS[status])
                    .opcode(opcode == NONE ? null : OPCODE[opcode]).wcFlags(flags).sl((int) (m >>> 24) & 0xff)
                    .dlidPathBits((int) (m >>> 32) & 0xff).portNum((int) (m >>> 40) & 0xff).slid((int) (m >>> 48));
        }

        void copyFrom(Ring o, int from, int to) {
            wrId[to] = o.wrId[from];
            qp[to] = o.qp[from];
            byteLen[to] = o.byteLen[from];
            ex[to] = o.ex[from];
            vendorErr[to] = o.vendorErr[from];
            qpns[to] = o.qpns[from];
            misc[to] = o.misc[from];
        }
    }
}
