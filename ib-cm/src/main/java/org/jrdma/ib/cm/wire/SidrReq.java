package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * SIDR_REQ, service ID resolution request (IBTA table 119): request ID at 0, P_Key (16) at 4, service ID at 8,
 * 216 bytes of private data at 16 (for rdma_cm UDP ports: a 36-byte {@link CmaHeader} first).
 */
public final class SidrReq {
    /** {@code IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 216;
    static final int PRIVATE_DATA = 16;
    static final CmField REQUEST_ID = CmField.u32("request ID", 0);
    static final CmField PKEY = CmField.u16("P_Key", 4);
    static final int SERVICE_ID = 8;

    private int requestId;
    private int pkey;
    private long serviceId;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int requestId() { return requestId; }
    public SidrReq requestId(int v) { requestId = v; return this; }
    public int pkey() { return pkey; }
    public SidrReq pkey(int v) { pkey = PKEY.check(v); return this; }
    public long serviceId() { return serviceId; }
    public SidrReq serviceId(long v) { serviceId = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 216 bytes; IllegalArgumentException if longer. */
    public SidrReq privateData(byte[] v) {
        privateData = Wire.fixed("SIDR_REQ private data", v, PRIVATE_DATA_SIZE);
        return this;
    }

    public static SidrReq decode(Mad m) {
        CmAttr.expect(m, CmAttr.SIDR_REQ);
        SidrReq r = new SidrReq().requestId(REQUEST_ID.get(m)).pkey(PKEY.get(m))
                .serviceId(m.u64(CmField.at(SERVICE_ID)));
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.SIDR_REQ, tid);
        REQUEST_ID.set(m, requestId);
        PKEY.set(m, pkey);
        m.u64(CmField.at(SERVICE_ID), serviceId);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("SIDR_REQ request_id 0x%08x pkey 0x%04x service_id 0x%016x", requestId, pkey, serviceId);
    }
}
