package org.jrdma.ib.cm.wire;

import org.jrdma.ib.cm.ib.IbCmRejReason;
import org.jrdma.ib.mad.Mad;

/**
 * REJ, reject (IBTA table 108): local comm ID at 0, remote comm ID at 4, message rejected (2 bits) at the top of
 * byte 8, rejected info length (7 bits) at the top of byte 9, reason (16) at 10, 72 bytes of additional
 * rejection information (ARI) at 12, 148 bytes of private data at 84.
 */
public final class CmRej {
    /** {@code IB_CM_REJ_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 148;
    /** {@code IB_CM_REJ_ARI_LENGTH}. */
    public static final int ARI_LENGTH = 72;
    static final int ARI = 12;
    static final int PRIVATE_DATA = 84;
    static final CmField MESSAGE_REJECTED = CmField.u8("message rejected", 8, 6, 2);
    static final CmField REJECTED_INFO_LENGTH = CmField.u8("rejected info length", 9, 1, 7);
    static final CmField REASON = CmField.u16("reason", 10);

    private int localCommId;
    private int remoteCommId;
    private int messageRejected;
    private int rejectedInfoLength;
    private int reason;
    private byte[] ari = new byte[ARI_LENGTH];
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmRej localCommId(int v) { localCommId = v; return this; }
    public int remoteCommId() { return remoteCommId; }
    public CmRej remoteCommId(int v) { remoteCommId = v; return this; }
    /** {@link CmMra#MSG_REQ}, {@link CmMra#MSG_REP} or {@link CmMra#MSG_OTHER}. */
    public int messageRejected() { return messageRejected; }
    public CmRej messageRejected(int v) { messageRejected = MESSAGE_REJECTED.check(v); return this; }
    /** The number of valid ARI bytes (Linux: the {@code ari_length} given to {@code ib_send_cm_rej}). */
    public int rejectedInfoLength() { return rejectedInfoLength; }
    public CmRej rejectedInfoLength(int v) {
        if (REJECTED_INFO_LENGTH.check(v) > ARI_LENGTH) {
            throw new IllegalArgumentException("rejected info length is at most " + ARI_LENGTH + ", not " + v);
        }
        rejectedInfoLength = v;
        return this;
    }
    /** The reason code ({@link IbCmRejReason#code()}; unknown codes are kept as they are). */
    public int reason() { return reason; }
    public CmRej reason(int v) { reason = REASON.check(v); return this; }
    public CmRej reason(IbCmRejReason v) { reason = v.code(); return this; }
    /** The 72 bytes of additional rejection information. */
    public byte[] ari() { return ari.clone(); }
    /** Zero-padded to 72 bytes; IllegalArgumentException if longer. Does not set {@link #rejectedInfoLength}. */
    public CmRej ari(byte[] v) { ari = Wire.fixed("REJ ARI", v, ARI_LENGTH); return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 148 bytes; IllegalArgumentException if longer. */
    public CmRej privateData(byte[] v) { privateData = Wire.fixed("REJ private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmRej decode(Mad m) {
        CmAttr.expect(m, CmAttr.REJ);
        CmRej r = new CmRej().localCommId(CmField.LOCAL_COMM_ID.get(m)).remoteCommId(CmField.REMOTE_COMM_ID.get(m))
                .messageRejected(MESSAGE_REJECTED.get(m)).reason(REASON.get(m));
        r.rejectedInfoLength = REJECTED_INFO_LENGTH.get(m); // as received, even past 72
        r.ari = Wire.read(m, CmField.at(ARI), ARI_LENGTH);
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.REJ, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        CmField.REMOTE_COMM_ID.set(m, remoteCommId);
        MESSAGE_REJECTED.set(m, messageRejected);
        REJECTED_INFO_LENGTH.set(m, rejectedInfoLength);
        REASON.set(m, reason);
        Wire.write(m, CmField.at(ARI), ari);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        IbCmRejReason r = IbCmRejReason.find(reason);
        return String.format("REJ local_comm_id 0x%08x remote_comm_id 0x%08x message_rejected %d reason %d%s ari_length %d",
                localCommId, remoteCommId, messageRejected, reason, r == null ? "" : " (" + r + ")", rejectedInfoLength);
    }
}
