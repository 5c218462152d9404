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
    static final int LOCAL_CA_GUID = 28;
    static final CmField LOCAL_QKEY = CmField.u32("local Q_Key", 8);
    static final CmField LOCAL_QPN = CmField.u32("local QPN", 12, 8, 24);
    static final CmField LOCAL_EECN = CmField.u32("local EECN", 16, 8, 24);
    static final CmField STARTING_PSN = CmField.u32("starting PSN", 20, 8, 24);
    static final CmField RESPONDER_RESOURCES = CmField.u8("responder resources", 24, 0, 8);
    static final CmField INITIATOR_DEPTH = CmField.u8("initiator depth", 25, 0, 8);
    static final CmField TARGET_ACK_DELAY = CmField.u8("target ACK delay", 26, 3, 5);
    static final CmField FAILOVER_ACCEPTED_FIELD = CmField.u8("failover accepted", 26, 1, 2);
    static final CmField FLOW_CONTROL = CmField.u8("end-to-end flow control", 26, 0, 1);
    static final CmField RNR_RETRY_COUNT = CmField.u8("RNR retry count", 27, 5, 3);
    static final CmField SRQ = CmField.u8("SRQ", 27, 4, 1);

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
    public CmRep localQpn(int v) { localQpn = LOCAL_QPN.check(v); return this; }
    public int localEecn() { return localEecn; }
    public CmRep localEecn(int v) { localEecn = LOCAL_EECN.check(v); return this; }
    public int startingPsn() { return startingPsn; }
    public CmRep startingPsn(int v) { startingPsn = STARTING_PSN.check(v); return this; }
    public int responderResources() { return responderResources; }
    public CmRep responderResources(int v) { responderResources = RESPONDER_RESOURCES.check(v); return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public CmRep initiatorDepth(int v) { initiatorDepth = INITIATOR_DEPTH.check(v); return this; }
    /** The replier CA's ACK delay (5-bit timeout code; rxe: 15). */
    public int targetAckDelay() { return targetAckDelay; }
    public CmRep targetAckDelay(int v) { targetAckDelay = TARGET_ACK_DELAY.check(v); return this; }
    public int failoverAccepted() { return failoverAccepted; }
    public CmRep failoverAccepted(int v) { failoverAccepted = FAILOVER_ACCEPTED_FIELD.check(v); return this; }
    public boolean flowControl() { return flowControl; }
    public CmRep flowControl(boolean v) { flowControl = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public CmRep rnrRetryCount(int v) { rnrRetryCount = RNR_RETRY_COUNT.check(v); return this; }
    public boolean srq() { return srq; }
    public CmRep srq(boolean v) { srq = v; return this; }
    public long localCaGuid() { return localCaGuid; }
    public CmRep localCaGuid(long v) { localCaGuid = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 196 bytes; IllegalArgumentException if longer. */
    public CmRep privateData(byte[] v) { privateData = Wire.fixed("REP private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmRep decode(Mad m) {
        CmAttr.expect(m, CmAttr.REP);
        CmRep r = new CmRep().localCommId(CmField.LOCAL_COMM_ID.get(m)).remoteCommId(CmField.REMOTE_COMM_ID.get(m))
                .localQkey(LOCAL_QKEY.get(m))
                .localQpn(LOCAL_QPN.get(m))
                .localEecn(LOCAL_EECN.get(m))
                .startingPsn(STARTING_PSN.get(m))
                .responderResources(RESPONDER_RESOURCES.get(m))
                .initiatorDepth(INITIATOR_DEPTH.get(m))
                .targetAckDelay(TARGET_ACK_DELAY.get(m))
                .failoverAccepted(FAILOVER_ACCEPTED_FIELD.get(m))
                .flowControl(FLOW_CONTROL.get(m) != 0)
                .rnrRetryCount(RNR_RETRY_COUNT.get(m))
                .srq(SRQ.get(m) != 0)
                .localCaGuid(m.u64(CmField.at(LOCAL_CA_GUID)));
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.REP, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        CmField.REMOTE_COMM_ID.set(m, remoteCommId);
        LOCAL_QKEY.set(m, localQkey);
        LOCAL_QPN.set(m, localQpn);
        LOCAL_EECN.set(m, localEecn);
        STARTING_PSN.set(m, startingPsn);
        RESPONDER_RESOURCES.set(m, responderResources);
        INITIATOR_DEPTH.set(m, initiatorDepth);
        TARGET_ACK_DELAY.set(m, targetAckDelay);
        FAILOVER_ACCEPTED_FIELD.set(m, failoverAccepted);
        FLOW_CONTROL.set(m, Wire.bit(flowControl));
        RNR_RETRY_COUNT.set(m, rnrRetryCount);
        SRQ.set(m, Wire.bit(srq));
        m.u64(CmField.at(LOCAL_CA_GUID), localCaGuid);
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
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
