package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * CM attribute IDs ({@code CM_*_ATTR_ID} of {@code ib_cm.h}) and the common MAD header every CM message
 * carries: base version 1, class 0x07 (CM), class version 2, method Send, status 0.
 */
public final class CmAttr {
    /** {@code IB_CM_CLASS_VERSION}. */
    public static final int CLASS_VERSION = 2;

    public static final int REQ = 0x0010;
    public static final int MRA = 0x0011;
    public static final int REJ = 0x0012;
    public static final int REP = 0x0013;
    public static final int RTU = 0x0014;
    public static final int DREQ = 0x0015;
    public static final int DREP = 0x0016;
    public static final int SIDR_REQ = 0x0017;
    public static final int SIDR_REP = 0x0018;
    public static final int LAP = 0x0019;
    public static final int APR = 0x001A;

    /** Offset of the CM message in the MAD (after the 24-byte common header). */
    static final int DATA = Mad.HDR_SIZE;

    private CmAttr() {
    }

    /** A zeroed MAD with the CM header of {@code attrId} and {@code tid} ({@code cm_format_mad_hdr}). */
    public static Mad header(int attrId, long tid) {
        return new Mad()
                .baseVersion(Mad.BASE_VERSION)
                .mgmtClass(Mad.CLASS_CM)
                .classVersion(CLASS_VERSION)
                .method(Mad.METHOD_SEND)
                .tid(tid)
                .attrId(attrId);
    }

    /** The message name of an attribute ID ("REQ", "DREP", ...), or "0x001b" for an unknown one. */
    public static String name(int attrId) {
        switch (attrId) {
            case REQ: return "REQ";
            case MRA: return "MRA";
            case REJ: return "REJ";
            case REP: return "REP";
            case RTU: return "RTU";
            case DREQ: return "DREQ";
            case DREP: return "DREP";
            case SIDR_REQ: return "SIDR_REQ";
            case SIDR_REP: return "SIDR_REP";
            case LAP: return "LAP";
            case APR: return "APR";
            default: return String.format("0x%04x", attrId);
        }
    }

    /** Checks that {@code m} is a CM MAD of {@code attrId} before a decode. */
    static void expect(Mad m, int attrId) {
        if (m.mgmtClass() != Mad.CLASS_CM || m.attrId() != attrId) {
            throw new IllegalArgumentException("not a CM " + name(attrId) + ": class 0x"
                    + Integer.toHexString(m.mgmtClass()) + ", attribute " + name(m.attrId()));
        }
    }
}
