package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * One field of a CM message, as {@code ibta_vol1_c12.h} locates it with {@code IBA_FIELD*_LOC}: the byte
 * offset of its big-endian container (1, 2 or 4 bytes) in the message (after the MAD header), and its bits
 * within that container ({@code shift} from the low end, {@code bits} wide). Fields sharing a container
 * are written read-modify-write, so a message is encoded field by field into a zeroed MAD.
 *
 * @param name   the field's name in IBTA's table (for range errors)
 * @param offset the container's byte offset from the start of the CM message
 * @param size   the container's size in bytes: 1, 2 or 4
 * @param shift  the field's lowest bit in the container
 * @param bits   the field's width
 */
record CmField(String name, int offset, int size, int shift, int bits) {
    /** Every CM message but SIDR's starts with the two comm IDs ({@code CM_*_LOCAL_COMM_ID}, {@code CM_*_REMOTE_COMM_ID}). */
    static final CmField LOCAL_COMM_ID = u32("local comm ID", 0);
    static final CmField REMOTE_COMM_ID = u32("remote comm ID", 4);

    /** A whole 32-bit word. */
    static CmField u32(String name, int offset) {
        return new CmField(name, offset, 4, 0, 32);
    }

    /** {@code bits} bits of the 32-bit word at {@code offset}, {@code shift} bits from its low end. */
    static CmField u32(String name, int offset, int shift, int bits) {
        return new CmField(name, offset, 4, shift, bits);
    }

    /** A whole 16-bit word. */
    static CmField u16(String name, int offset) {
        return new CmField(name, offset, 2, 0, 16);
    }

    /** {@code bits} bits of the byte at {@code offset}, {@code shift} bits from its low end. */
    static CmField u8(String name, int offset, int shift, int bits) {
        return new CmField(name, offset, 1, shift, bits);
    }

    private long mask() {
        return (1L << bits) - 1;
    }

    private long container(Mad m, int at) {
        return switch (size) {
            case 1 -> m.u8(at);
            case 2 -> m.u16(at);
            default -> m.u32(at);
        };
    }

    /** The field's value in {@code m} (a 32-bit field as the int with the same bits). */
    int get(Mad m) {
        return get(m, 0);
    }

    /** The field's value in a structure at {@code base} of the message (a REQ's path). */
    int get(Mad m, int base) {
        return (int) ((container(m, at(base + offset)) >>> shift) & mask());
    }

    /** Writes {@code v} into the field; IllegalArgumentException (naming the field) if it does not fit. */
    void set(Mad m, int v) {
        set(m, 0, v);
    }

    /** Writes {@code v} into the field of a structure at {@code base} of the message. */
    void set(Mad m, int base, int v) {
        Wire.check(name, v, bits);
        int at = at(base + offset);
        long c = container(m, at) & ~(mask() << shift) | ((v & mask()) << shift);
        switch (size) {
            case 1 -> m.u8(at, (int) c);
            case 2 -> m.u16(at, (int) c);
            default -> m.u32(at, c);
        }
    }

    /** The field's value checked to fit, as the message's setters check it. */
    int check(int v) {
        return Wire.check(name, v, bits);
    }

    /** The offset of the byte array field at {@code offset} in the MAD. */
    static int at(int offset) {
        return CmAttr.DATA + offset;
    }
}
