package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * SIDR_REP, service ID resolution reply (IBTA table 120): request ID at 0, status (8) at 4, additional
 * information length (8) at 5, QPN (24) at 8, service ID at 12, Q_Key at 20, 72 bytes of class port info /
 * additional information at 24, 136 bytes of private data at 96.
 */
public final class SidrRep {
    /** {@code IB_CM_SIDR_REP_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 136;
    /** {@code IB_CM_SIDR_REP_INFO_LENGTH}. */
    public static final int INFO_LENGTH = 72;
    /** {@code enum ib_cm_sidr_status}. */
    public static final int SUCCESS = 0;
    public static final int UNSUPPORTED = 1;
    public static final int REJECT = 2;
    public static final int NO_QP = 3;
    public static final int REDIRECT = 4;
    public static final int UNSUPPORTED_VERSION = 5;
    static final int INFO = 24;
    static final int PRIVATE_DATA = 96;

    private int requestId;
    private int status;
    private int additionalInfoLength;
    private int qpn;
    private long serviceId;
    private int qkey;
    private byte[] info = new byte[INFO_LENGTH];
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int requestId() { return requestId; }
    public SidrRep requestId(int v) { requestId = v; return this; }
    /** {@link #SUCCESS}, {@link #UNSUPPORTED}, ... */
    public int status() { return status; }
    public SidrRep status(int v) { status = Wire.check("status", v, 8); return this; }
    public int additionalInfoLength() { return additionalInfoLength; }
    public SidrRep additionalInfoLength(int v) { additionalInfoLength = Wire.check("additional info length", v, 8); return this; }
    public int qpn() { return qpn; }
    public SidrRep qpn(int v) { qpn = Wire.check("QPN", v, 24); return this; }
    public long serviceId() { return serviceId; }
    public SidrRep serviceId(long v) { serviceId = v; return this; }
    public int qkey() { return qkey; }
    public SidrRep qkey(int v) { qkey = v; return this; }
    /** The 72 bytes of additional information. */
    public byte[] info() { return info.clone(); }
    /** Zero-padded to 72 bytes; IllegalArgumentException if longer. Does not set {@link #additionalInfoLength}. */
    public SidrRep info(byte[] v) { info = Wire.fixed("SIDR_REP additional information", v, INFO_LENGTH); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 136 bytes; IllegalArgumentException if longer. */
    public SidrRep privateData(byte[] v) {
        privateData = Wire.fixed("SIDR_REP private data", v, PRIVATE_DATA_SIZE);
        return this;
    }

    public static SidrRep decode(Mad m) {
        CmAttr.expect(m, CmAttr.SIDR_REP);
        int d = CmAttr.DATA;
        SidrRep r = new SidrRep()
                .requestId((int) m.u32(d))
                .status(m.u8(d + 4))
                .additionalInfoLength(m.u8(d + 5))
                .qpn((int) (m.u32(d + 8) >>> 8))
                .serviceId(m.u64(d + 12))
                .qkey((int) m.u32(d + 20));
        r.info = Wire.read(m, d + INFO, INFO_LENGTH);
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.SIDR_REP, tid);
        int d = CmAttr.DATA;
        m.u32(d, requestId & 0xffffffffL);
        m.u8(d + 4, status);
        m.u8(d + 5, additionalInfoLength);
        m.u32(d + 8, (long) qpn << 8);
        m.u64(d + 12, serviceId);
        m.u32(d + 20, qkey & 0xffffffffL);
        Wire.write(m, d + INFO, info);
        Wire.write(m, d + PRIVATE_DATA, privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("SIDR_REP request_id 0x%08x status %d qpn 0x%06x service_id 0x%016x qkey 0x%08x",
                requestId, status, qpn, serviceId, qkey);
    }
}
