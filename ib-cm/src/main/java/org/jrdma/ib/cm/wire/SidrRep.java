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
    static final CmField REQUEST_ID = CmField.u32("request ID", 0);
    static final CmField STATUS = CmField.u8("status", 4, 0, 8);
    static final CmField ADDITIONAL_INFO_LENGTH = CmField.u8("additional info length", 5, 0, 8);
    static final CmField QPN = CmField.u32("QPN", 8, 8, 24);
    static final int SERVICE_ID = 12;
    static final CmField QKEY = CmField.u32("Q_Key", 20);

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
    public SidrRep status(int v) { status = STATUS.check(v); return this; }
    public int additionalInfoLength() { return additionalInfoLength; }
    public SidrRep additionalInfoLength(int v) { additionalInfoLength = ADDITIONAL_INFO_LENGTH.check(v); return this; }
    public int qpn() { return qpn; }
    public SidrRep qpn(int v) { qpn = QPN.check(v); return this; }
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
        SidrRep r = new SidrRep().requestId(REQUEST_ID.get(m)).status(STATUS.get(m))
                .additionalInfoLength(ADDITIONAL_INFO_LENGTH.get(m)).qpn(QPN.get(m))
                .serviceId(m.u64(CmField.at(SERVICE_ID))).qkey(QKEY.get(m));
        r.info = Wire.read(m, CmField.at(INFO), INFO_LENGTH);
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.SIDR_REP, tid);
        REQUEST_ID.set(m, requestId);
        STATUS.set(m, status);
        ADDITIONAL_INFO_LENGTH.set(m, additionalInfoLength);
        QPN.set(m, qpn);
        m.u64(CmField.at(SERVICE_ID), serviceId);
        QKEY.set(m, qkey);
        Wire.write(m, CmField.at(INFO), info);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("SIDR_REP request_id 0x%08x status %d qpn 0x%06x service_id 0x%016x qkey 0x%08x",
                requestId, status, qpn, serviceId, qkey);
    }
}
