package org.jrdma.hw.rxe.wire;

import static org.jrdma.hw.rxe.wire.RxeMask.ACK;
import static org.jrdma.hw.rxe.wire.RxeMask.AETH;
import static org.jrdma.hw.rxe.wire.RxeMask.ATMACK;
import static org.jrdma.hw.rxe.wire.RxeMask.ATMETH;
import static org.jrdma.hw.rxe.wire.RxeMask.ATOMIC;
import static org.jrdma.hw.rxe.wire.RxeMask.COMP;
import static org.jrdma.hw.rxe.wire.RxeMask.DETH;
import static org.jrdma.hw.rxe.wire.RxeMask.END;
import static org.jrdma.hw.rxe.wire.RxeMask.IETH;
import static org.jrdma.hw.rxe.wire.RxeMask.IMMDT;
import static org.jrdma.hw.rxe.wire.RxeMask.MIDDLE;
import static org.jrdma.hw.rxe.wire.RxeMask.PAYLOAD;
import static org.jrdma.hw.rxe.wire.RxeMask.RDETH;
import static org.jrdma.hw.rxe.wire.RxeMask.READ;
import static org.jrdma.hw.rxe.wire.RxeMask.REQ;
import static org.jrdma.hw.rxe.wire.RxeMask.RETH;
import static org.jrdma.hw.rxe.wire.RxeMask.RWR;
import static org.jrdma.hw.rxe.wire.RxeMask.SEND;
import static org.jrdma.hw.rxe.wire.RxeMask.START;
import static org.jrdma.hw.rxe.wire.RxeMask.WRITE;

/**
 * Every BTH opcode Linux 6.1 rxe handles, with its properties, as {@code rxe_opcode[]} in rxe_opcode.c.
 *
 * <p>Each row is data: the 8-bit value (from include/rdma/ib_pack.h) and the {@link RxeMask} bits. The
 * offset of each extension header and the total header length follow from the mask, in the IBA header
 * order that rxe's table uses: BTH, RDETH, DETH, RETH | AtomicETH | AETH, AtomicAckETH, IETH, ImmDt,
 * payload. (For example RC_ATOMIC_ACKNOWLEDGE: AETH at 12, AtomicAckETH at 16, length 24;
 * UD_SEND_ONLY_WITH_IMMEDIATE: DETH at 12, ImmDt at 20, length 24.)
 *
 * <p>Not here, on purpose: the RD rows (rxe's table has them but {@code RXE_MAX_EE} is 0 and
 * rxe_recv.c drops RD), the reserved RC value 0x15, and RDMA FLUSH 0x1C / ATOMIC WRITE 0x1D (Linux 6.2+).
 * {@link #of(int)} returns {@code null} for all of them.
 */
public enum RxeOpcode {
    // RC (transport 0x00)
    RC_SEND_FIRST(0x00, PAYLOAD | REQ | RWR | SEND | START),
    RC_SEND_MIDDLE(0x01, PAYLOAD | REQ | SEND | MIDDLE),
    RC_SEND_LAST(0x02, PAYLOAD | REQ | COMP | SEND | END),
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, IMMDT | PAYLOAD | REQ | COMP | SEND | END),
    RC_SEND_ONLY(0x04, PAYLOAD | REQ | COMP | RWR | SEND | START | END),
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, IMMDT | PAYLOAD | REQ | COMP | RWR | SEND | START | END),
    RC_RDMA_WRITE_FIRST(0x06, RETH | PAYLOAD | REQ | WRITE | START),
    RC_RDMA_WRITE_MIDDLE(0x07, PAYLOAD | REQ | WRITE | MIDDLE),
    RC_RDMA_WRITE_LAST(0x08, PAYLOAD | REQ | WRITE | END),
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, IMMDT | PAYLOAD | REQ | WRITE | COMP | RWR | END),
    RC_RDMA_WRITE_ONLY(0x0a, RETH | PAYLOAD | REQ | WRITE | START | END),
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0b, RETH | IMMDT | PAYLOAD | REQ | WRITE | COMP | RWR | START | END),
    RC_RDMA_READ_REQUEST(0x0c, RETH | REQ | READ | START | END),
    RC_RDMA_READ_RESPONSE_FIRST(0x0d, AETH | PAYLOAD | ACK | START),
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0e, PAYLOAD | ACK | MIDDLE),
    RC_RDMA_READ_RESPONSE_LAST(0x0f, AETH | PAYLOAD | ACK | END),
    RC_RDMA_READ_RESPONSE_ONLY(0x10, AETH | PAYLOAD | ACK | START | END),
    RC_ACKNOWLEDGE(0x11, AETH | ACK | START | END),
    RC_ATOMIC_ACKNOWLEDGE(0x12, AETH | ATMACK | ACK | START | END),
    RC_COMPARE_SWAP(0x13, ATMETH | REQ | ATOMIC | START | END),
    RC_FETCH_ADD(0x14, ATMETH | REQ | ATOMIC | START | END),
    RC_SEND_LAST_WITH_INVALIDATE(0x16, IETH | PAYLOAD | REQ | COMP | SEND | END),
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, IETH | PAYLOAD | REQ | COMP | RWR | SEND | START | END),

    // UC (transport 0x20): SEND and RDMA WRITE only
    UC_SEND_FIRST(0x20, PAYLOAD | REQ | RWR | SEND | START),
    UC_SEND_MIDDLE(0x21, PAYLOAD | REQ | SEND | MIDDLE),
    UC_SEND_LAST(0x22, PAYLOAD | REQ | COMP | SEND | END),
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, IMMDT | PAYLOAD | REQ | COMP | SEND | END),
    UC_SEND_ONLY(0x24, PAYLOAD | REQ | COMP | RWR | SEND | START | END),
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, IMMDT | PAYLOAD | REQ | COMP | RWR | SEND | START | END),
    UC_RDMA_WRITE_FIRST(0x26, RETH | PAYLOAD | REQ | WRITE | START),
    UC_RDMA_WRITE_MIDDLE(0x27, PAYLOAD | REQ | WRITE | MIDDLE),
    UC_RDMA_WRITE_LAST(0x28, PAYLOAD | REQ | WRITE | END),
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, IMMDT | PAYLOAD | REQ | WRITE | COMP | RWR | END),
    UC_RDMA_WRITE_ONLY(0x2a, RETH | PAYLOAD | REQ | WRITE | START | END),
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x2b, RETH | IMMDT | PAYLOAD | REQ | WRITE | COMP | RWR | START | END),

    // UD (transport 0x60)
    UD_SEND_ONLY(0x64, DETH | PAYLOAD | REQ | COMP | RWR | SEND | START | END),
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, DETH | IMMDT | PAYLOAD | REQ | COMP | RWR | SEND | START | END);

    /** Transport service, the top 3 bits of the opcode ({@code IB_OPCODE_RC} ... {@code IB_OPCODE_UD}). */
    public enum Transport {
        RC, UC, RD, UD
    }

    private static final RxeOpcode[] BY_VALUE = new RxeOpcode[256];

    static {
        for (RxeOpcode op : values()) {
            BY_VALUE[op.value] = op;
        }
    }

    private final int value;
    private final int mask;
    private final int rdethOffset;
    private final int dethOffset;
    private final int rethOffset;
    private final int atmethOffset;
    private final int aethOffset;
    private final int atmackOffset;
    private final int iethOffset;
    private final int immdtOffset;
    private final int length;
    private final Transport transport;

    RxeOpcode(int value, int mask) {
        this.value = value;
        this.transport = Transport.values()[value >>> 5];
        this.mask = mask | RxeMask.BTH;
        int off = Bth.BYTES;
        rdethOffset = (mask & RDETH) != 0 ? off : -1;
        off += (mask & RDETH) != 0 ? 4 : 0; // RXE_RDETH_BYTES (no RD rows)
        dethOffset = (mask & DETH) != 0 ? off : -1;
        off += (mask & DETH) != 0 ? Deth.BYTES : 0;
        rethOffset = (mask & RETH) != 0 ? off : -1;
        off += (mask & RETH) != 0 ? Reth.BYTES : 0;
        atmethOffset = (mask & ATMETH) != 0 ? off : -1;
        off += (mask & ATMETH) != 0 ? AtomicEth.BYTES : 0;
        aethOffset = (mask & AETH) != 0 ? off : -1;
        off += (mask & AETH) != 0 ? Aeth.BYTES : 0;
        atmackOffset = (mask & ATMACK) != 0 ? off : -1;
        off += (mask & ATMACK) != 0 ? AtomicAckEth.BYTES : 0;
        iethOffset = (mask & IETH) != 0 ? off : -1;
        off += (mask & IETH) != 0 ? Ieth.BYTES : 0;
        immdtOffset = (mask & IMMDT) != 0 ? off : -1;
        off += (mask & IMMDT) != 0 ? ImmDt.BYTES : 0;
        length = off;
    }

    /**
     * The opcode with BTH value {@code value} (0..255), or {@code null} if rxe does not handle it. O(1).
     */
    public static RxeOpcode of(int value) {
        return (value & ~0xff) == 0 ? BY_VALUE[value] : null;
    }

    /** The 8-bit BTH opcode. */
    public int value() {
        return value;
    }

    /** {@link RxeMask} bits (always including {@link RxeMask#BTH}). */
    public int mask() {
        return mask;
    }

    /** True if every bit of {@code bits} is set in {@link #mask()}. */
    public boolean is(int bits) {
        return (mask & bits) == bits;
    }

    public Transport transport() {
        return transport;
    }

    /** Total transport header length: BTH plus extension headers; the payload starts here. */
    public int length() {
        return length;
    }

    /** Offset of the payload from the start of the BTH (same as {@link #length()}). */
    public int payloadOffset() {
        return length;
    }

    /** Offset of the DETH from the start of the BTH, or -1. */
    public int dethOffset() {
        return dethOffset;
    }

    /** Offset of the RDETH from the start of the BTH; always -1 (no RD opcodes). */
    public int rdethOffset() {
        return rdethOffset;
    }

    /** Offset of the RETH from the start of the BTH, or -1. */
    public int rethOffset() {
        return rethOffset;
    }

    /** Offset of the AtomicETH from the start of the BTH, or -1. */
    public int atmethOffset() {
        return atmethOffset;
    }

    /** Offset of the AETH from the start of the BTH, or -1. */
    public int aethOffset() {
        return aethOffset;
    }

    /** Offset of the AtomicAckETH from the start of the BTH, or -1. */
    public int atmackOffset() {
        return atmackOffset;
    }

    /** Offset of the IETH from the start of the BTH, or -1. */
    public int iethOffset() {
        return iethOffset;
    }

    /** Offset of the ImmDt from the start of the BTH, or -1. */
    public int immdtOffset() {
        return immdtOffset;
    }
}
