package org.jrdma.hw.rxe.wire;

/**
 * Outcome of {@link RxePacket#decode}. Anything but {@link #OK} means drop the packet, as rxe_recv.c does
 * (it counts nothing and logs at debug level only).
 */
public enum RxeDecodeStatus {
    /** Headers are present and consistent; offsets and fields are valid. */
    OK,
    /** Shorter than a BTH, or than the opcode's headers plus the 4-byte ICRC. */
    MALFORMED_SHORT,
    /** An opcode rxe does not handle (reserved, RD, FLUSH/ATOMIC WRITE on 6.1, CNP, ...). */
    BAD_OPCODE,
    /** BTH TVer is not 0 (rxe_recv.c {@code hdr_check}: "bad tver"). */
    BAD_TVER,
    /** The BTH pad count is larger than the bytes between the headers and the ICRC. */
    BAD_PAD
}
