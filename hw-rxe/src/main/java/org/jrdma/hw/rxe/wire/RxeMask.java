package org.jrdma.hw.rxe.wire;

/**
 * The per-opcode property bits of rxe's opcode table ({@code enum rxe_hdr_mask} in rxe_opcode.h).
 *
 * <p>The low bits say which headers the opcode carries (one per {@code enum rxe_hdr_type}); the high bits
 * say what kind of packet it is. Bit positions follow the Linux 6.1 enum (no FETH: RDMA FLUSH is 6.2+).
 * rxe has no separate "invalidate" bit: {@link #IETH} marks SEND with invalidate.
 */
public final class RxeMask {
    /** Local route header (native IB only, never on RoCE). */
    public static final int LRH = 1;
    /** Global route header (native IB only; RoCEv2 carries IP instead). */
    public static final int GRH = 1 << 1;
    /** Base transport header, 12 bytes: every packet. */
    public static final int BTH = 1 << 2;
    /** RDMA extended transport header, 16 bytes. */
    public static final int RETH = 1 << 3;
    /** ACK extended transport header, 4 bytes. */
    public static final int AETH = 1 << 4;
    /** Atomic extended transport header, 28 bytes. */
    public static final int ATMETH = 1 << 5;
    /** Atomic ACK extended transport header, 8 bytes. */
    public static final int ATMACK = 1 << 6;
    /** Invalidate extended transport header, 4 bytes (SEND with invalidate). */
    public static final int IETH = 1 << 7;
    /** Reliable datagram extended transport header, 4 bytes (RD, unsupported by rxe). */
    public static final int RDETH = 1 << 8;
    /** Datagram extended transport header, 8 bytes (UD). */
    public static final int DETH = 1 << 9;
    /** Immediate data, 4 bytes. */
    public static final int IMMDT = 1 << 10;
    /** The opcode carries a payload. */
    public static final int PAYLOAD = 1 << 11;

    private static final int NUM_HDR_TYPES = 12;

    /** A request (requester to responder). */
    public static final int REQ = 1 << NUM_HDR_TYPES;
    /** A response (ACK, atomic ACK, read response). */
    public static final int ACK = 1 << (NUM_HDR_TYPES + 1);
    public static final int SEND = 1 << (NUM_HDR_TYPES + 2);
    public static final int WRITE = 1 << (NUM_HDR_TYPES + 3);
    public static final int READ = 1 << (NUM_HDR_TYPES + 4);
    public static final int ATOMIC = 1 << (NUM_HDR_TYPES + 5);
    /** Consumes a receive WQE at the responder. */
    public static final int RWR = 1 << (NUM_HDR_TYPES + 6);
    /** Generates a completion at the responder. */
    public static final int COMP = 1 << (NUM_HDR_TYPES + 7);
    /** First packet of a message. */
    public static final int START = 1 << (NUM_HDR_TYPES + 8);
    /** Neither first nor last. */
    public static final int MIDDLE = 1 << (NUM_HDR_TYPES + 9);
    /** Last packet of a message. */
    public static final int END = 1 << (NUM_HDR_TYPES + 10);

    public static final int READ_OR_ATOMIC = READ | ATOMIC;
    public static final int WRITE_OR_SEND = WRITE | SEND;
    public static final int READ_OR_WRITE = READ | WRITE;

    private RxeMask() {
    }
}
