package org.jrdma.ib.core;

/** {@code enum ib_mtu}: the IB MTU code (1..5) and its size in bytes. */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    public int code() {
        return code;
    }

    public int bytes() {
        return bytes;
    }

    public static Mtu ofCode(int code) {
        for (Mtu m : values()) {
            if (m.code == code) {
                return m;
            }
        }
        throw new VerbsException(Errno.EINVAL, "invalid IB MTU code " + code + " (1..5)");
    }

    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new VerbsException(Errno.EINVAL, "invalid IB MTU " + bytes + " (256, 512, 1024, 2048 or 4096)");
    }

    /** The largest IB MTU that fits an Ethernet MTU, as {@code ib_mtu_int_to_enum} after rxe's header room. */
    public static Mtu fitting(int bytes) {
        Mtu best = null;
        for (Mtu m : values()) {
            if (m.bytes <= bytes) {
                best = m;
            }
        }
        if (best == null) {
            throw new VerbsException(Errno.EINVAL, "MTU " + bytes + " is below the IB minimum of 256");
        }
        return best;
    }
}
