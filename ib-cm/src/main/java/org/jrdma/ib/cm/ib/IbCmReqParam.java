package org.jrdma.ib.cm.ib;

/** {@code struct ib_cm_req_param}: what a REQ carries ({@link IbCmId#sendReq}). RC only. */
public final class IbCmReqParam {
    private IbCmPath primaryPath;
    private long serviceId;
    private int qpNum;
    private int startingPsn;
    private byte[] privateData = new byte[0];
    private int responderResources;
    private int initiatorDepth;
    private int remoteCmResponseTimeout = 20;
    private int localCmResponseTimeout = 20;
    private boolean flowControl;
    private int retryCount = 7;
    private int rnrRetryCount = 7;
    private int maxCmRetries = 15;
    private boolean srq;

    public IbCmPath primaryPath() { return primaryPath; }
    public IbCmReqParam primaryPath(IbCmPath v) { primaryPath = v; return this; }
    public long serviceId() { return serviceId; }
    public IbCmReqParam serviceId(long v) { serviceId = v; return this; }
    /** The local QP's number. */
    public int qpNum() { return qpNum; }
    public IbCmReqParam qpNum(int v) { qpNum = v; return this; }
    /** The first PSN this side's receive queue expects (the peer sends from it). */
    public int startingPsn() { return startingPsn; }
    public IbCmReqParam startingPsn(int v) { startingPsn = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    public IbCmReqParam privateData(byte[] v) { privateData = v == null ? new byte[0] : v.clone(); return this; }
    public int responderResources() { return responderResources; }
    public IbCmReqParam responderResources(int v) { responderResources = v; return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public IbCmReqParam initiatorDepth(int v) { initiatorDepth = v; return this; }
    /** The 5-bit timeout code the peer's CM has to answer in. */
    public int remoteCmResponseTimeout() { return remoteCmResponseTimeout; }
    public IbCmReqParam remoteCmResponseTimeout(int v) { remoteCmResponseTimeout = v; return this; }
    public int localCmResponseTimeout() { return localCmResponseTimeout; }
    public IbCmReqParam localCmResponseTimeout(int v) { localCmResponseTimeout = v; return this; }
    public boolean flowControl() { return flowControl; }
    public IbCmReqParam flowControl(boolean v) { flowControl = v; return this; }
    public int retryCount() { return retryCount; }
    public IbCmReqParam retryCount(int v) { retryCount = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public IbCmReqParam rnrRetryCount(int v) { rnrRetryCount = v; return this; }
    public int maxCmRetries() { return maxCmRetries; }
    public IbCmReqParam maxCmRetries(int v) { maxCmRetries = v; return this; }
    public boolean srq() { return srq; }
    public IbCmReqParam srq(boolean v) { srq = v; return this; }
}
