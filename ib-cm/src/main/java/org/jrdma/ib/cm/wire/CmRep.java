package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/**
 * REP, the connection reply (IBTA table 110, {@code CM_REP_*}). Offsets from the start of the message:
 *
 * <pre>
 *  0 local comm ID    4 remote comm ID    8 local Q_Key    12 local QPN (24) | rsvd
 * 16 local EECN (24) | rsvd               20 starting PSN (24) | rsvd
 * 24 responder resources (8)              25 initiator depth (8)
 * 26 target ACK delay (5) | failover accepted (2) | end-to-end flow control (1)
 * 27 RNR retry count (3) | SRQ (1) | rsvd (4)
 * 28 local CA GUID (64)                   36 private data (196)
 * </pre>
 */
public final class CmRep {
    /** {@code IB_CM_REP_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 196;
    /** Failover accepted values (IBTA 12.6.8): accepted, not supported, rejected. */
    public static final int FAILOVER_ACCEPTED = 0;
    public static final int FAILOVER_NOT_SUPPORTED = 1;
    public static final int FAILOVER_REJECTED = 2;

    static final int PRIVATE_DATA = 36;

    private int localCommId;
    private int remoteCommId;
    private int localQkey;
    private int localQpn;
    private int localEecn;
    private int startingPsn;
    private int responderResources;
    private int initiatorDepth;
    private int targetAckDelay;
    private int failoverAccepted;
    private boolean flowControl;
    private int rnrRetryCount;
    private boolean srq;
    private long localCaGuid;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmRep localCommId(int v) { localCommId = v; return this; }
    public int remoteCommId() { return remoteCommId; }
    public CmRep remoteCommId(int v) { remoteCommId = v; return this; }
    public int localQkey() { return localQkey; }
    public CmRep localQkey(int v) { localQkey = v; return this; }
    public int localQpn() { return localQpn; }
    public CmRep localQpn(int v) { localQpn = Wire.check("local QPN", v, 24); return this; }
    public int localEecn() { return localEecn; }
    public CmRep localEecn(int v) { localEecn = Wire.check("local EECN", v, 24); return this; }
    public int startingPsn() { return startingPsn; }
    public CmRep startingPsn(int v) { startingPsn = Wire.check("starting PSN", v, 24); return this; }
    public int responderResources() { return responderResources; }
    public CmRep responderResources(int v) { responderResources = Wire.check("responder resources", v, 8); return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public CmRep initiatorDepth(int v) { initiatorDepth = Wire.check("initiator depth", v, 8); return this; }
    /** The replier CA's ACK delay (5-bit timeout code; rxe: 15). */
    public int targetAckDelay() { return targetAckDelay; }
    public CmRep targetAckDelay(int v) { targetAckDelay = Wire.check("target ACK delay", v, 5); return this; }
    public int failoverAccepted() { return failoverAccepted; }
    public CmRep failoverAccepted(int v) { failoverAccepted = Wire.check("failover accepted", v, 2); return this; }
    public boolean flowControl() { return flowControl; }
    public CmRep flowControl(boolean v) { flowControl = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public CmRep rnrRetryCount(int v) { rnrRetryCount = Wire.check("RNR retry count", v, 3); return this; }
    public boolean srq() { return srq; }
    public CmRep srq(boolean v) { srq = v; return this; }
    public long localCaGuid() { return localCaGuid; }
    public CmRep localCaGuid(long v) { localCaGuid = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 196 bytes; IllegalArgumentException if longer. */
    public CmRep privateData(byte[] v) { privateData = Wire.fixed("REP private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmRep decode(Mad m) {
        CmAttr.expect(m, CmAttr.REP);
        int d = CmAttr.DATA;
        int b26 = m.u8(d + 26);
        int b27 = m.u8(d + 27);
        CmRep r = new CmRep()
                .localCommId((int) m.u32(d))
                .remoteCommId((int) m.u32(d + 4))
                .localQkey((int) m.u32(d + 8))
                .localQpn((int) (m.u32(d + 12) >>> 8))
                .localEecn((int) (m.u32(d + 16) >>> 8))
                .startingPsn((int) (m.u32(d + 20) >>> 8))
                .responderResources(m.u8(d + 24))
                .initiatorDepth(m.u8(d + 25))
                .targetAckDelay(b26 >>> 3)
                .failoverAccepted((b26 >>> 1) & 0x3)
                .flowControl((b26 & 1) != 0)
                .rnrRetryCount(b27 >>> 5)
                .srq((b27 & 0x10) != 0)
                .localCaGuid(m.u64(d + 28));
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.REP, tid);
        int d = CmAttr.DATA;
        m.u32(d, localCommId & 0xffffffffL);
        m.u32(d + 4, remoteCommId & 0xffffffffL);
        m.u32(d + 8, localQkey & 0xffffffffL);
        m.u32(d + 12, (long) localQpn << 8);
        m.u32(d + 16, (long) localEecn << 8);
        m.u32(d + 20, (long) startingPsn << 8);
        m.u8(d + 24, responderResources);
        m.u8(d + 25, initiatorDepth);
        m.u8(d + 26, targetAckDelay << 3 | failoverAccepted << 1 | Wire.bit(flowControl));
        m.u8(d + 27, rnrRetryCount << 5 | Wire.bit(srq) << 4);
        m.u64(d + 28, localCaGuid);
        Wire.write(m, d + PRIVATE_DATA, privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("REP local_comm_id 0x%08x remote_comm_id 0x%08x qkey 0x%08x qpn 0x%06x psn 0x%06x"
                        + " resp_res %d init_depth %d target_ack_delay %d failover %d flow_ctrl %d rnr_retry %d"
                        + " srq %d ca_guid 0x%016x",
                localCommId, remoteCommId, localQkey, localQpn, startingPsn, responderResources, initiatorDepth,
                targetAckDelay, failoverAccepted, Wire.bit(flowControl), rnrRetryCount, Wire.bit(srq), localCaGuid);
    }
}
