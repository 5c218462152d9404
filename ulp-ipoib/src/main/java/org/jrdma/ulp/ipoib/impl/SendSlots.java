package org.jrdma.ulp.ipoib.impl;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.UnaryOperator;

import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;

/**
 * A send ring in one registered buffer (the UD QP's, connected mode's pool): a frame is copied into a free slot,
 * header first, and posted as one signalled SEND whose work request ID names the slot; its completion frees it.
 * Used only on the interface's thread.
 */
final class SendSlots {
    /** Set in the work request ID of a send, so a shared CQ tells sends from receives. */
    private static final long SEND_ID = 1L << 32;

    private final ByteBuffer buf;
    private final MemoryRegion mr;
    private final int slotSize;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();

    SendSlots(ProtectionDomain pd, int count, int slotSize) {
        this.slotSize = slotSize;
        buf = ByteBuffer.allocateDirect(count * slotSize);
        mr = pd.regMr(buf, 0);
        for (int i = 0; i < count; i++) {
            free.add(i);
        }
    }

    /** Whether a slot is free (the ring is what Linux's netif queue stop is for). */
    boolean canSend() {
        return !free.isEmpty();
    }

    /**
     * Posts the IPoIB header and {@code payload} on {@code qp}, the work request completed by {@code wr} (a UD
     * address, or nothing for RC); false if no slot is free.
     */
    boolean post(QueuePair qp, int ethertype, byte[] payload, UnaryOperator<SendWr> wr) {
        Integer slot = free.poll();
        if (slot == null) {
            return false;
        }
        int off = slot * slotSize;
        byte[] hdr = new byte[Encap.LEN];
        Encap.write(hdr, 0, ethertype);
        buf.put(off, hdr).put(off + Encap.LEN, payload);
        try {
            qp.postSend(wr.apply(new SendWr().wrId(SEND_ID | slot).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(mr.iova() + off, Encap.LEN + payload.length, mr.lkey()))));
            return true;
        } catch (RuntimeException e) {
            free.add(slot);
            throw e;
        }
    }

    /** True if {@code wc} completes one of these sends; its slot is free again. */
    boolean completed(WorkCompletion wc) {
        if ((wc.wrId() & SEND_ID) == 0) {
            return false;
        }
        free.add((int) wc.wrId());
        return true;
    }

    MemoryRegion mr() {
        return mr;
    }
}
