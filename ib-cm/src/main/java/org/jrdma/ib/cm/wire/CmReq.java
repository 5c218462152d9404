package org.jrdma.ib.cm.wire;

import java.util.Objects;

import org.jrdma.ib.mad.Mad;

/**
 * REQ, the connection request (IBTA table 106, {@code CM_REQ_*} of {@code ibta_vol1_c12.h}). Offsets are from
 * the start of the message (MAD byte 24):
 *
 * <pre>
 *  0 local comm ID            4 rsvd            8 service ID (64)     16 local CA GUID (64)   24 rsvd
 * 28 local Q_Key             32 local QPN (24) | responder resources (8)
 * 36 local EECN (24) | initiator depth (8)
 * 40 remote EECN (24) | remote CM response timeout (5) | transport service type (2) | end-to-end flow control (1)
 * 44 starting PSN (24) | local CM response timeout (5) | retry count (3)
 * 48 P_Key (16)              50 path MTU (4) | RDC exists (1) | RNR retry count (3)
 * 51 max CM retries (4) | SRQ (1) | extended transport type (3)
 * 52 primary path (44)       96 alternate path (44)     140 private data (92)
 * </pre>
 */
public final class CmReq {
    /** {@code IB_CM_REQ_PRIVATE_DATA_SIZE}. */
    public static final int PRIVATE_DATA_SIZE = 92;
    /** Transport service types ({@code cm_req_set_qp_type}): RC, UC, and 3 with extended type 1 for XRC. */
    public static final int TRANSPORT_RC = 0;
    public static final int TRANSPORT_UC = 1;
    public static final int TRANSPORT_RD = 2;
    public static final int TRANSPORT_EXTENDED = 3;
    public static final int EXTENDED_TRANSPORT_XRC = 1;

    static final int SERVICE_ID = 8;
    static final int LOCAL_CA_GUID = 16;
    static final CmField LOCAL_QKEY = CmField.u32("local Q_Key", 28);
    static final CmField LOCAL_QPN = CmField.u32("local QPN", 32, 8, 24);
    static final CmField RESPONDER_RESOURCES = CmField.u32("responder resources", 32, 0, 8);
    static final CmField LOCAL_EECN = CmField.u32("local EECN", 36, 8, 24);
    static final CmField INITIATOR_DEPTH = CmField.u32("initiator depth", 36, 0, 8);
    static final CmField REMOTE_EECN = CmField.u32("remote EECN", 40, 8, 24);
    static final CmField REMOTE_CM_RESPONSE_TIMEOUT = CmField.u32("remote CM response timeout", 40, 3, 5);
    static final CmField TRANSPORT_TYPE = CmField.u32("transport service type", 40, 1, 2);
    static final CmField FLOW_CONTROL = CmField.u32("end-to-end flow control", 40, 0, 1);
    static final CmField STARTING_PSN = CmField.u32("starting PSN", 44, 8, 24);
    static final CmField LOCAL_CM_RESPONSE_TIMEOUT = CmField.u32("local CM response timeout", 44, 3, 5);
    static final CmField RETRY_COUNT = CmField.u32("retry count", 44, 0, 3);
    static final CmField PKEY = CmField.u16("P_Key", 48);
    static final CmField PATH_MTU = CmField.u8("path MTU", 50, 4, 4);
    static final CmField RDC_EXISTS = CmField.u8("RDC exists", 50, 3, 1);
    static final CmField RNR_RETRY_COUNT = CmField.u8("RNR retry count", 50, 0, 3);
    static final CmField MAX_CM_RETRIES = CmField.u8("max CM retries", 51, 4, 4);
    static final CmField SRQ = CmField.u8("SRQ", 51, 3, 1);
    static final CmField EXTENDED_TRANSPORT_TYPE = CmField.u8("extended transport type", 51, 0, 3);
    static final int PRIMARY_PATH = 52;
    static final int ALTERNATE_PATH = 96;
    static final int PRIVATE_DATA = 140;

    private int localCommId;
    private long serviceId;
    private long localCaGuid;
    private int localQkey;
    private int localQpn;
    private int responderResources;
    private int localEecn;
    private int initiatorDepth;
    private int remoteEecn;
    private int remoteCmResponseTimeout;
    private int transportType;
    private boolean flowControl;
    private int startingPsn;
    private int localCmResponseTimeout;
    private int retryCount;
    private int pkey;
    private int pathMtu;
    private boolean rdcExists;
    private int rnrRetryCount;
    private int maxCmRetries;
    private boolean srq;
    private int extendedTransportType;
    private CmPath primaryPath = new CmPath();
    private CmPath alternatePath;
    private byte[] privateData = new byte[PRIVATE_DATA_SIZE];

    public int localCommId() { return localCommId; }
    public CmReq localCommId(int v) { localCommId = v; return this; }
    public long serviceId() { return serviceId; }
    public CmReq serviceId(long v) { serviceId = v; return this; }
    public long localCaGuid() { return localCaGuid; }
    public CmReq localCaGuid(long v) { localCaGuid = v; return this; }
    public int localQkey() { return localQkey; }
    public CmReq localQkey(int v) { localQkey = v; return this; }
    public int localQpn() { return localQpn; }
    public CmReq localQpn(int v) { localQpn = LOCAL_QPN.check(v); return this; }
    public int responderResources() { return responderResources; }
    public CmReq responderResources(int v) { responderResources = RESPONDER_RESOURCES.check(v); return this; }
    public int localEecn() { return localEecn; }
    public CmReq localEecn(int v) { localEecn = LOCAL_EECN.check(v); return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public CmReq initiatorDepth(int v) { initiatorDepth = INITIATOR_DEPTH.check(v); return this; }
    /** Remote EECN (RD only; Linux leaves it 0). */
    public int remoteEecn() { return remoteEecn; }
    public CmReq remoteEecn(int v) { remoteEecn = REMOTE_EECN.check(v); return this; }
    public int remoteCmResponseTimeout() { return remoteCmResponseTimeout; }
    public CmReq remoteCmResponseTimeout(int v) {
        remoteCmResponseTimeout = REMOTE_CM_RESPONSE_TIMEOUT.check(v);
        return this;
    }
    /** {@link #TRANSPORT_RC}, {@link #TRANSPORT_UC}, ... */
    public int transportType() { return transportType; }
    public CmReq transportType(int v) { transportType = TRANSPORT_TYPE.check(v); return this; }
    public boolean flowControl() { return flowControl; }
    public CmReq flowControl(boolean v) { flowControl = v; return this; }
    public int startingPsn() { return startingPsn; }
    public CmReq startingPsn(int v) { startingPsn = STARTING_PSN.check(v); return this; }
    public int localCmResponseTimeout() { return localCmResponseTimeout; }
    public CmReq localCmResponseTimeout(int v) {
        localCmResponseTimeout = LOCAL_CM_RESPONSE_TIMEOUT.check(v);
        return this;
    }
    public int retryCount() { return retryCount; }
    public CmReq retryCount(int v) { retryCount = RETRY_COUNT.check(v); return this; }
    public int pkey() { return pkey; }
    public CmReq pkey(int v) { pkey = PKEY.check(v); return this; }
    /** The path MTU as the IB code ({@code enum ib_mtu}, 1..5: 256..4096; {@code Mtu.ofCode}). */
    public int pathMtu() { return pathMtu; }
    public CmReq pathMtu(int v) { pathMtu = PATH_MTU.check(v); return this; }
    public boolean rdcExists() { return rdcExists; }
    public CmReq rdcExists(boolean v) { rdcExists = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public CmReq rnrRetryCount(int v) { rnrRetryCount = RNR_RETRY_COUNT.check(v); return this; }
    public int maxCmRetries() { return maxCmRetries; }
    public CmReq maxCmRetries(int v) { maxCmRetries = MAX_CM_RETRIES.check(v); return this; }
    public boolean srq() { return srq; }
    public CmReq srq(boolean v) { srq = v; return this; }
    public int extendedTransportType() { return extendedTransportType; }
    public CmReq extendedTransportType(int v) {
        extendedTransportType = EXTENDED_TRANSPORT_TYPE.check(v);
        return this;
    }
    public CmPath primaryPath() { return primaryPath; }
    public CmReq primaryPath(CmPath v) { primaryPath = Objects.requireNonNull(v, "primary path"); return this; }
    /** The alternate path, or null when the 44 bytes of it are all zero (no alternate path; RoCE never has one). */
    public CmPath alternatePath() { return alternatePath; }
    public CmReq alternatePath(CmPath v) { alternatePath = v; return this; }
    /** The 92 bytes of private data (for rdma_cm: the 36-byte {@link CmaHeader} and 56 bytes of user data). */
    public byte[] privateData() { return privateData.clone(); }
    /** Zero-padded to 92 bytes; IllegalArgumentException if longer. */
    public CmReq privateData(byte[] v) { privateData = Wire.fixed("REQ private data", v, PRIVATE_DATA_SIZE); return this; }

    public static CmReq decode(Mad m) {
        CmAttr.expect(m, CmAttr.REQ);
        CmReq r = new CmReq().localCommId(CmField.LOCAL_COMM_ID.get(m))
                .serviceId(m.u64(CmField.at(SERVICE_ID))).localCaGuid(m.u64(CmField.at(LOCAL_CA_GUID)))
                .localQkey(LOCAL_QKEY.get(m))
                .localQpn(LOCAL_QPN.get(m))
                .responderResources(RESPONDER_RESOURCES.get(m))
                .localEecn(LOCAL_EECN.get(m))
                .initiatorDepth(INITIATOR_DEPTH.get(m))
                .remoteEecn(REMOTE_EECN.get(m))
                .remoteCmResponseTimeout(REMOTE_CM_RESPONSE_TIMEOUT.get(m))
                .transportType(TRANSPORT_TYPE.get(m))
                .flowControl(FLOW_CONTROL.get(m) != 0)
                .startingPsn(STARTING_PSN.get(m))
                .localCmResponseTimeout(LOCAL_CM_RESPONSE_TIMEOUT.get(m))
                .retryCount(RETRY_COUNT.get(m))
                .pkey(PKEY.get(m))
                .pathMtu(PATH_MTU.get(m))
                .rdcExists(RDC_EXISTS.get(m) != 0)
                .rnrRetryCount(RNR_RETRY_COUNT.get(m))
                .maxCmRetries(MAX_CM_RETRIES.get(m))
                .srq(SRQ.get(m) != 0)
                .extendedTransportType(EXTENDED_TRANSPORT_TYPE.get(m))
                .primaryPath(CmPath.read(m, PRIMARY_PATH));
        if (!Wire.allZero(m, CmField.at(ALTERNATE_PATH), CmPath.SIZE)) {
            r.alternatePath(CmPath.read(m, ALTERNATE_PATH));
        }
        r.privateData = Wire.read(m, CmField.at(PRIVATE_DATA), PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.REQ, tid);
        CmField.LOCAL_COMM_ID.set(m, localCommId);
        m.u64(CmField.at(SERVICE_ID), serviceId);
        m.u64(CmField.at(LOCAL_CA_GUID), localCaGuid);
        LOCAL_QKEY.set(m, localQkey);
        LOCAL_QPN.set(m, localQpn);
        RESPONDER_RESOURCES.set(m, responderResources);
        LOCAL_EECN.set(m, localEecn);
        INITIATOR_DEPTH.set(m, initiatorDepth);
        REMOTE_EECN.set(m, remoteEecn);
        REMOTE_CM_RESPONSE_TIMEOUT.set(m, remoteCmResponseTimeout);
        TRANSPORT_TYPE.set(m, transportType);
        FLOW_CONTROL.set(m, Wire.bit(flowControl));
        STARTING_PSN.set(m, startingPsn);
        LOCAL_CM_RESPONSE_TIMEOUT.set(m, localCmResponseTimeout);
        RETRY_COUNT.set(m, retryCount);
        PKEY.set(m, pkey);
        PATH_MTU.set(m, pathMtu);
        RDC_EXISTS.set(m, Wire.bit(rdcExists));
        RNR_RETRY_COUNT.set(m, rnrRetryCount);
        MAX_CM_RETRIES.set(m, maxCmRetries);
        SRQ.set(m, Wire.bit(srq));
        EXTENDED_TRANSPORT_TYPE.set(m, extendedTransportType);
        primaryPath.write(m, PRIMARY_PATH);
        if (alternatePath != null) {
            alternatePath.write(m, ALTERNATE_PATH);
        }
        Wire.write(m, CmField.at(PRIVATE_DATA), privateData);
        return m;
    }

    @Override
    public String toString() {
        return String.format("REQ local_comm_id 0x%08x service_id 0x%016x ca_guid 0x%016x qkey 0x%08x qpn 0x%06x"
                        + " resp_res %d init_depth %d remote_cm_timeout %d transport %d flow_ctrl %d psn 0x%06x"
                        + " local_cm_timeout %d retry %d pkey 0x%04x mtu %d rnr_retry %d max_cm_retries %d srq %d"
                        + " primary [%s]%s",
                localCommId, serviceId, localCaGuid, localQkey, localQpn, responderResources, initiatorDepth,
                remoteCmResponseTimeout, transportType, Wire.bit(flowControl), startingPsn, localCmResponseTimeout,
                retryCount, pkey, pathMtu, rnrRetryCount, maxCmRetries, Wire.bit(srq), primaryPath,
                alternatePath == null ? "" : " alternate [" + alternatePath + "]");
    }
}
