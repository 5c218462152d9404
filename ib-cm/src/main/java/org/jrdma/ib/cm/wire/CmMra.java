package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * MRA, message receipt acknowledgement (IBTA table 107): local comm ID at 0, remote comm ID at 4, message MRAed
 * (2 bits) at the top of byte 8, service timeout (5 bits) at the top of byte 9, 222 bytes of private data at 10.
 */
public final class CmMra {
    /** {@code IB_CM_MRA_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 222;
    /** {@code enum cm_msg_response}: which message is MRAed (or rejected, in a REJ). */
    public static final int MSG_REQ = 0;
    public static final int MSG_REP = 1;
    public static final int MSG_OTHER = 2;
    static final int PRIVATE_DATA = 10;

    private int localCommId;
    private int remoteCommId;
    private int messageMraed;
    private int serviceTimeout;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmMra localCommId(int v) { localCommId = v; return this; }
    public int remoteCommId() { return remoteCommId; }
    public CmMra remoteCommId(int v) { remoteCommId = v; return this; }
    /** {@link #MSG_REQ}, {@link #MSG_REP} or {@link #MSG_OTHER} (LAP). */
    public int messageMraed() { return messageMraed; }
    public CmMra messageMraed(int v) { messageMraed = Wire.check("message MRAed", v, 2); return this; }
    /** The 5-bit timeout code the sender of the MRA needs to answer ({@link CmTimeout}). */
    public int serviceTimeout() { return serviceTimeout; }
    public CmMra serviceTimeout(int v) { serviceTimeout = Wire.check("service timeout", v, 5); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 222 bytes; IllegalArgumentException if longer. */
    public CmMra privateData(byte[] v) { privateData = Wire.fixed("MRA private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmMra decode(Mad m) {
        CmAttr.expect(m, CmAttr.MRA);
        int d = CmAttr.DATA;
        CmMra r = new CmMra()
                .localCommId((int) m.u32(d))
                .remoteCommId((int) m.u32(d + 4))
                .messageMraed(m.u8(d + 8) >>> 6)
                .serviceTimeout(m.u8(d + 9) >>> 3);
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.MRA, tid);
        int d = CmAttr.DATA;
        m.u32(d, localCommId & 0xffffffffL);
        m.u32(d + 4, remoteCommId & 0xffffffffL);
        m.u8(d + 8, messageMraed << 6);
        m.u8(d + 9, serviceTimeout << 3);
        Wire.write(m, d + PRIVATE_DATA, privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("MRA local_comm_id 0x%08x remote_comm_id 0x%08x message_mraed %d service_timeout %d",
                localCommId, remoteCommId, messageMraed, serviceTimeout);
    }
}
