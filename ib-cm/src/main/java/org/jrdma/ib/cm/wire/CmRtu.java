package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/** RTU, ready to use (IBTA table 111): local comm ID at 0, remote comm ID at 4, 224 bytes of private data at 8. */
public final class CmRtu {
    /** {@code IB_CM_RTU_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 224;
    static final int PRIVATE_DATA = 8;

    private int localCommId;
    private int remoteCommId;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmRtu localCommId(int v) { localCommId = v; return this; }
    public int remoteCommId() { return remoteCommId; }
    public CmRtu remoteCommId(int v) { remoteCommId = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 224 bytes; IllegalArgumentException if longer. */
    public CmRtu privateData(byte[] v) { privateData = Wire.fixed("RTU private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmRtu decode(Mad m) {
        CmAttr.expect(m, CmAttr.RTU);
        int d = CmAttr.DATA;
        CmRtu r = new CmRtu().localCommId((int) m.u32(d)).remoteCommId((int) m.u32(d + 4));
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.RTU, tid);
        int d = CmAttr.DATA;
        m.u32(d, localCommId & 0xffffffffL);
        m.u32(d + 4, remoteCommId & 0xffffffffL);
        Wire.write(m, d + PRIVATE_DATA, privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("RTU local_comm_id 0x%08x remote_comm_id 0x%08x", localCommId, remoteCommId);
    }
}
