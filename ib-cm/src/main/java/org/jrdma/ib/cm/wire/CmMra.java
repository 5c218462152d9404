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
    static final CmField MESSAGE_MRAED = CmField.u8("message MRAed", 8, 6, 2);
    static final CmField SERVICE_TIMEOUT = CmField.u8("service timeout", 9, 3, 5);

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
    public CmMra messageMraed(int v) { messageMraed = MESSAGE_MRAED.check(v); return this; }
    /** The 5-bit timeout code the sender of the MRA needs to answer ({@link CmTimeout}). */
    public int serviceTimeout() { return serviceTimeout; }
    public CmMra serviceTimeout(int v) { serviceTimeout = SERVICE_TIMEOUT.check(v); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 222 bytes; IllegalArgumentException if longer. */
    public CmMra privateData(byte[] v) { privateData = Wire.fixed("MRA private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmMra decode(Mad m) {
        CmAttr.expect(m, CmAttr.MRA);
        CmMra r = new CmMra().localCommId(CmField.LOCAL_COMM_ID.get(m)).remoteCommId(CmField.REMOTE_COMM_ID.get(m))
                .messageMraed(MESSAGE_MRAED.get(m)).serviceTimeout(SERVICE_TIMEOUT.get(m));
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.MRA, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        CmField.REMOTE_COMM_ID.set(m, remoteCommId);
        MESSAGE_MRAED.set(m, messageMraed);
        SERVICE_TIMEOUT.set(m, serviceTimeout);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("MRA local_comm_id 0x%08x remote_comm_id 0x%08x message_mraed %d service_timeout %d",
                localCommId, remoteCommId, messageMraed, serviceTimeout);
    }
}
