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
    public CmReq localQpn(int v) { localQpn = Wire.check("local QPN", v, 24); return this; }
    public int responderResources() { return responderResources; }
    public CmReq responderResources(int v) { responderResources = Wire.check("responder resources", v, 8); return this; }
    public int localEecn() { return localEecn; }
    public CmReq localEecn(int v) { localEecn = Wire.check("local EECN", v, 24); return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public CmReq initiatorDepth(int v) { initiatorDepth = Wire.check("initiator depth", v, 8); return this; }
    /** Remote EECN (RD only; Linux leaves it 0). */
    public int remoteEecn() { return remoteEecn; }
    public CmReq remoteEecn(int v) { remoteEecn = Wire.check("remote EECN", v, 24); return this; }
    public int remoteCmResponseTimeout() { return remoteCmResponseTimeout; }
    public CmReq remoteCmResponseTimeout(int v) {
        remoteCmResponseTimeout = Wire.check("remote CM response timeout", v, 5);
        return this;
    }
    /** {@link #TRANSPORT_RC}, {@link #TRANSPORT_UC}, ... */
    public int transportType() { return transportType; }
    public CmReq transportType(int v) { transportType = Wire.check("transport service type", v, 2); return this; }
    public boolean flowControl() { return flowControl; }
    public CmReq flowControl(boolean v) { flowControl = v; return this; }
    public int startingPsn() { return startingPsn; }
    public CmReq startingPsn(int v) { startingPsn = Wire.check("starting PSN", v, 24); return this; }
    public int localCmResponseTimeout() { return localCmResponseTimeout; }
    public CmReq localCmResponseTimeout(int v) {
        localCmResponseTimeout = Wire.check("local CM response timeout", v, 5);
        return this;
    }
    public int retryCount() { return retryCount; }
    public CmReq retryCount(int v) { retryCount = Wire.check("retry count", v, 3); return this; }
    public int pkey() { return pkey; }
    public CmReq pkey(int v) { pkey = Wire.check("P_Key", v, 16); return this; }
    /** The path MTU as the IB code ({@code enum ib_mtu}, 1..5: 256..4096; {@code Mtu.ofCode}). */
    public int pathMtu() { return pathMtu; }
    public CmReq pathMtu(int v) { pathMtu = Wire.check("path MTU", v, 4); return this; }
    public boolean rdcExists() { return rdcExists; }
    public CmReq rdcExists(boolean v) { rdcExists = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public CmReq rnrRetryCount(int v) { rnrRetryCount = Wire.check("RNR retry count", v, 3); return this; }
    public int maxCmRetries() { return maxCmRetries; }
    public CmReq maxCmRetries(int v) { maxCmRetries = Wire.check("max CM retries", v, 4); return this; }
    public boolean srq() { return srq; }
    public CmReq srq(boolean v) { srq = v; return this; }
    public int extendedTransportType() { return extendedTransportType; }
    public CmReq extendedTransportType(int v) {
        extendedTransportType = Wire.check("extended transport type", v, 3);
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
        int d = CmAttr.DATA;
        long w32 = m.u32(d + 32);
        long w36 = m.u32(d + 36);
        long w40 = m.u32(d + 40);
        long w44 = m.u32(d + 44);
        int b50 = m.u8(d + 50);
        int b51 = m.u8(d + 51);
        CmReq r = new CmReq()
                .localCommId((int) m.u32(d))
                .serviceId(m.u64(d + 8))
                .localCaGuid(m.u64(d + 16))
                .localQkey((int) m.u32(d + 28))
                .localQpn((int) (w32 >>> 8))
                .responderResources((int) (w32 & 0xff))
                .localEecn((int) (w36 >>> 8))
                .initiatorDepth((int) (w36 & 0xff))
                .remoteEecn((int) (w40 >>> 8))
                .remoteCmResponseTimeout((int) (w40 >>> 3) & 0x1f)
                .transportType((int) (w40 >>> 1) & 0x3)
                .flowControl((w40 & 1) != 0)
                .startingPsn((int) (w44 >>> 8))
                .localCmResponseTimeout((int) (w44 >>> 3) & 0x1f)
                .retryCount((int) (w44 & 0x7))
                .pkey(m.u16(d + 48))
                .pathMtu(b50 >>> 4)
                .rdcExists((b50 & 0x08) != 0)
                .rnrRetryCount(b50 & 0x7)
                .maxCmRetries(b51 >>> 4)
                .srq((b51 & 0x08) != 0)
                .extendedTransportType(b51 & 0x7)
                .primaryPath(CmPath.read(m, d + PRIMARY_PATH));
        if (!Wire.allZero(m, d + ALTERNATE_PATH, CmPath.SIZE)) {
            r.alternatePath(CmPath.read(m, d + ALTERNATE_PATH));
        }
        r.privateData = Wire.read(m, d + PRIVATE_DATA, PRIVATE_DATA_SIZE);
        return r;
    }

    public Mad encode(long tid) {
        Mad m = CmAttr.header(CmAttr.REQ, tid);
        int d = CmAttr.DATA;
        m.u32(d, localCommId & 0xffffffffL);
        m.u64(d + 8, serviceId);
        m.u64(d + 16, localCaGuid);
        m.u32(d + 28, localQkey & 0xffffffffL);
        m.u32(d + 32, (long) localQpn << 8 | responderResources);
        m.u32(d + 36, (long) localEecn << 8 | initiatorDepth);
        m.u32(d + 40, (long) remoteEecn << 8 | remoteCmResponseTimeout << 3 | transportType << 1 | Wire.bit(flowControl));
        m.u32(d + 44, (long) startingPsn << 8 | localCmResponseTimeout << 3 | retryCount);
        m.u16(d + 48, pkey);
        m.u8(d + 50, pathMtu << 4 | Wire.bit(rdcExists) << 3 | rnrRetryCount);
        m.u8(d + 51, maxCmRetries << 4 | Wire.bit(srq) << 3 | extendedTransportType);
        primaryPath.write(m, d + PRIMARY_PATH);
        if (alternatePath != null) {
            alternatePath.write(m, d + ALTERNATE_PATH);
        }
        Wire.write(m, d + PRIVATE_DATA, privateData);
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
