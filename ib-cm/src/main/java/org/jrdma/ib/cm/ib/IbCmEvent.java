package org.jrdma.ib.cm.ib;

/**
 * {@code struct ib_cm_event}: what happened, and the received message's parameters ({@code ib_cm_req_event_param},
 * {@code ib_cm_rep_event_param}, {@code ib_cm_rej_event_param}, {@code ib_cm_sidr_*_event_param}). Fields a
 * message does not carry are 0 / null. Made by the IB CM; the setters are for it.
 */
public final class IbCmEvent {
    private final IbCmEventType type;
    private int status;
    private IbCmId listenId;
    private IbCmPath path;
    private long serviceId;
    private long remoteCaGuid;
    private int remoteQpn;
    private int startingPsn;
    private int responderResources;
    private int initiatorDepth;
    private boolean flowControl;
    private int retryCount;
    private int rnrRetryCount;
    private boolean srq;
    private int transportType;
    private byte[] privateData = new byte[0];
    private int rejReason;
    private byte[] ari = new byte[0];
    private int qkey;

    public IbCmEvent(IbCmEventType type) {
        this.type = type;
    }

    public IbCmEventType type() { return type; }
    /** 0, a negative errno for the *_ERROR events (-ETIMEDOUT), the SIDR_REP status for SIDR_REP_RECEIVED. */
    public int status() { return status; }
    public IbCmEvent status(int v) { status = v; return this; }
    /** REQ_RECEIVED, SIDR_REQ_RECEIVED: the listening id the request matched. */
    public IbCmId listenId() { return listenId; }
    public IbCmEvent listenId(IbCmId v) { listenId = v; return this; }
    /** REQ_RECEIVED: the primary path seen from this side; SIDR_REQ_RECEIVED: the way back to the sender. */
    public IbCmPath path() { return path; }
    public IbCmEvent path(IbCmPath v) { path = v; return this; }
    public long serviceId() { return serviceId; }
    public IbCmEvent serviceId(long v) { serviceId = v; return this; }
    public long remoteCaGuid() { return remoteCaGuid; }
    public IbCmEvent remoteCaGuid(long v) { remoteCaGuid = v; return this; }
    /** REQ, REP: the sender's QP; SIDR_REP: the QPN resolved. */
    public int remoteQpn() { return remoteQpn; }
    public IbCmEvent remoteQpn(int v) { remoteQpn = v; return this; }
    public int startingPsn() { return startingPsn; }
    public IbCmEvent startingPsn(int v) { startingPsn = v; return this; }
    public int responderResources() { return responderResources; }
    public IbCmEvent responderResources(int v) { responderResources = v; return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public IbCmEvent initiatorDepth(int v) { initiatorDepth = v; return this; }
    public boolean flowControl() { return flowControl; }
    public IbCmEvent flowControl(boolean v) { flowControl = v; return this; }
    public int retryCount() { return retryCount; }
    public IbCmEvent retryCount(int v) { retryCount = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public IbCmEvent rnrRetryCount(int v) { rnrRetryCount = v; return this; }
    public boolean srq() { return srq; }
    public IbCmEvent srq(boolean v) { srq = v; return this; }
    /** REQ: the transport service type (0: RC). */
    public int transportType() { return transportType; }
    public IbCmEvent transportType(int v) { transportType = v; return this; }
    /** The message's private data, all of its bytes (zero-padded as on the wire). */
    public byte[] privateData() { return privateData.clone(); }
    public IbCmEvent privateData(byte[] v) { privateData = v == null ? new byte[0] : v.clone(); return this; }
    /** REJ_RECEIVED: the reason code ({@link IbCmRejReason#code()}). */
    public int rejReason() { return rejReason; }
    public IbCmEvent rejReason(int v) { rejReason = v; return this; }
    /** REJ_RECEIVED: the additional rejection information (its valid bytes). */
    public byte[] ari() { return ari.clone(); }
    public IbCmEvent ari(byte[] v) { ari = v == null ? new byte[0] : v.clone(); return this; }
    /** SIDR_REP_RECEIVED: the Q_Key of the resolved QP. */
    public int qkey() { return qkey; }
    public IbCmEvent qkey(int v) { qkey = v; return this; }

    @Override
    public String toString() {
        return type + (status != 0 ? " status " + status : "") + (rejReason != 0 ? " reason " + rejReason : "");
    }
}
