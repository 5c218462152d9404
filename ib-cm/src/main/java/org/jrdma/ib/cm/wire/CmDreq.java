package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * DREQ, disconnection request (IBTA table 112): local comm ID at 0, remote comm ID at 4, the remote QPN/EECN
 * (the peer's QPN, 24 bits) at 8, 220 bytes of private data at 12.
 */
public final class CmDreq {
    /** {@code IB_CM_DREQ_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 220;
    static final int PRIVATE_DATA = 12;
    static final CmField REMOTE_QPN = CmField.u32("remote QPN/EECN", 8, 8, 24);

    private int localCommId;
    private int remoteCommId;
    private int remoteQpn;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmDreq localCommId(int v) { localCommId = v; return this; }
    public int remoteCommId() { return remoteCommId; }
    public CmDreq remoteCommId(int v) { remoteCommId = v; return this; }
    /** The QPN of the receiver of the DREQ ({@code CM_DREQ_REMOTE_QPN_EECN}). */
    public int remoteQpn() { return remoteQpn; }
    public CmDreq remoteQpn(int v) { remoteQpn = REMOTE_QPN.check(v); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 220 bytes; IllegalArgumentException if longer. */
    public CmDreq privateData(byte[] v) { privateData = Wire.fixed("DREQ private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmDreq decode(Mad m) {
        CmAttr.expect(m, CmAttr.DREQ);
        CmDreq r = new CmDreq().localCommId(CmField.LOCAL_COMM_ID.get(m)).remoteCommId(CmField.REMOTE_COMM_ID.get(m))
                .remoteQpn(REMOTE_QPN.get(m));
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.DREQ, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        CmField.REMOTE_COMM_ID.set(m, remoteCommId);
        REMOTE_QPN.set(m, remoteQpn);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("DREQ local_comm_id 0x%08x remote_comm_id 0x%08x remote_qpn 0x%06x", localCommId,
                remoteCommId, remoteQpn);
    }
}
