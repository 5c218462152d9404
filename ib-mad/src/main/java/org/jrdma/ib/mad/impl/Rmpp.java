package org.jrdma.ib.mad.impl;

import org.jrdma.ib.mad.Mad;

/**
 * The RMPP header ({@code struct ib_rmpp_hdr}, 12 bytes after the common header) and the segment
 * arithmetic of {@code mad_rmpp.c}.
 */
public final class Rmpp {
    public static final int VERSION = 1;
    public static final int TYPE_DATA = 1;
    public static final int TYPE_ACK = 2;
    public static final int TYPE_STOP = 3;
    public static final int TYPE_ABORT = 4;
    public static final int FLAG_ACTIVE = 1;
    public static final int FLAG_FIRST = 2;
    public static final int FLAG_LAST = 4;
    /** {@code IB_MGMT_RMPP_DATA}: the bytes after the common and RMPP headers. */
    public static final int RMPP_DATA = 220;
    /** RRespTime "no time value" (0x1f) in the upper five bits. */
    static final int NO_RESP_TIME = 0x1f << 3;

    private Rmpp() {
    }

    public static int type(Mad m) { return m.u8(25); }
    public static int flags(Mad m) { return m.u8(26) & 0x7; }
    public static long segNum(Mad m) { return m.u32(28); }
    public static long paylenNewwin(Mad m) { return m.u32(32); }

    /**
     * Whether {@code m} carries an active RMPP header. Only the classes that define one have it
     * ({@code ib_is_mad_class_rmpp}): elsewhere bytes 24..35 are class data, and a CM REQ or SIDR_REQ whose
     * random communication or request ID happened to read as RMPP version 1, ACTIVE and not DATA was taken for
     * an RMPP ACK/STOP/ABORT and dropped without a count, its resends with it (about one connection in 512).
     */
    public static boolean active(Mad m) {
        return classUsesRmpp(m.mgmtClass()) && m.u8(24) == VERSION && (flags(m) & FLAG_ACTIVE) != 0;
    }

    /**
     * {@code ib_is_mad_class_rmpp}: SubnAdm, DevMgt, DevAdm, BIS and the vendor range 2 (0x30..0x4f).
     */
    public static boolean classUsesRmpp(int mgmtClass) {
        return mgmtClass == Mad.CLASS_SUBN_ADM || mgmtClass == Mad.CLASS_DEVICE_MGMT || mgmtClass == 0x10
                || mgmtClass == 0x12 || mgmtClass >= 0x30 && mgmtClass <= 0x4f;
    }

    public static void set(Mad m, int type, int flags, long segNum, long paylenNewwin) {
        m.u8(24, VERSION).u8(25, type).u8(26, NO_RESP_TIME | flags).u8(27, 0).u32(28, segNum).u32(32, paylenNewwin);
    }

    /** {@code ib_get_mad_data_offset}: where the class data of each segment begins. */
    public static int dataOffset(int mgmtClass) {
        return mgmtClass == Mad.CLASS_SUBN_ADM ? 56 : 36;
    }
}
