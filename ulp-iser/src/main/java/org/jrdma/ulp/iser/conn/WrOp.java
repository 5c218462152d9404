package org.jrdma.ulp.iser.conn;

import java.util.concurrent.CompletableFuture;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.ulp.iser.pdu.IserPdu;

/** One send-queue work request a caller asked for, and the stage its completion completes. */
final class WrOp {
    final WrOpcode opcode;
    final IserPdu pdu;
    final int invalidateRkey;
    final IserBuffer local;
    final int offset;
    final int length;
    final int rkey;
    final long va;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    /**
     * Posted without IB_SEND_SIGNALED: a signalled WR the caller posts after it will complete it (RC completes a
     * send queue in order; an error or a flush is reported for every WR, signalled or not).
     */
    boolean unsignaled;
    /** Its wrId once posted (the send queue's posting sequence number). */
    long seq = -1;
    /** The send buffer a SEND was encoded into while posted, or null. */
    SendBuffers.Buffer sendBuffer;

    private WrOp(WrOpcode opcode, IserPdu pdu, int invalidateRkey, IserBuffer local, int offset, int length,
            int rkey, long va) {
        this.opcode = opcode;
        this.pdu = pdu;
        this.invalidateRkey = invalidateRkey;
        this.local = local;
        this.offset = offset;
        this.length = length;
        this.rkey = rkey;
        this.va = va;
    }

    static WrOp send(IserPdu pdu, boolean invalidate, int rkey) {
        return new WrOp(invalidate ? WrOpcode.SEND_WITH_INV : WrOpcode.SEND, pdu, rkey, null, 0, 0, 0, 0);
    }

    static WrOp rdma(WrOpcode opcode, IserBuffer local, int offset, int length, int rkey, long va) {
        return new WrOp(opcode, null, 0, local, offset, length, rkey, va);
    }

    boolean isSend() {
        return pdu != null;
    }

    void fail(String status) {
        done.completeExceptionally(new IserTransportException(status + ": " + this));
    }

    @Override
    public String toString() {
        return isSend() ? opcode + " " + pdu.pdu().opcode()
                : opcode + " " + length + " bytes, STag 0x" + Integer.toHexString(rkey) + " VA 0x" + Long.toHexString(va);
    }
}
