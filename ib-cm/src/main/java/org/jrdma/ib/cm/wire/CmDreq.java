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
    public CmDreq remoteQpn(int v) { remoteQpn = Wire.check("remote QPN/EECN", v, 24); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 220 bytes; IllegalArgumentException if longer. */
    public CmDreq privateData(byte[] v) { privateData = Wire.fixed("DREQ private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmDreq decode(Mad m) {
        CmAttr.expect(m, CmAttr.DREQ);
        int d = CmAttr.DATA;
        CmDreq r = new CmDreq()
                .localCommId((int) m.u32(d))
                .remoteCommId((int) m.u32(d + 4))
                .remoteQpn((int) (m.u32(d + 8) >>> 8));
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.DREQ, tid);
        int d = CmAttr.DATA;
        m.u32(d, localCommId & 0xffffffffL);
        m.u32(d + 4, remoteCommId & 0xffffffffL);
        m.u32(d + 8, (long) remoteQpn << 8);
        Wire.write(m, d + PRIVATE_DATA, privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("DREQ local_comm_id 0x%08x remote_comm_id 0x%08x remote_qpn 0x%06x", localCommId,
                remoteCommId, remoteQpn);
    }
}
