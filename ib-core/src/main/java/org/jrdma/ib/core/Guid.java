package org.jrdma.ib.core;

/** Formatting of 64-bit GUIDs as the Linux tools print them. */
public final class Guid {
    private Guid() {
    }

    /** {@code 5054:00ff:fec0:0002}, as {@code ibv_devinfo} and {@code rdma dev} print a GUID. */
    public static String colon(long guid) {
        return String.format("%04x:%04x:%04x:%04x", (guid >>> 48) & 0xffff, (guid >>> 32) & 0xffff,
                (guid >>> 16) & 0xffff, guid & 0xffff);
    }

    /** {@code 505400fffec00002}, as {@code ibv_devices} prints it. */
    public static String plain(long guid) {
        return String.format("%016x", guid);
    }
}
