package org.jrdma.ib.cm;

/**
 * {@code struct rdma_conn_param}. Private data: at most 56 bytes in a connect (REQ: 92 less the
 * 36-byte CMA header), 196 in an accept (REP), 148 in a reject.
 */
public final class RdmaConnParam {
    private byte[] privateData = new byte[0];
    private int responderResources = 1;
    private int initiatorDepth = 1;
    private int flowControl = 1;
    private int retryCount = 7;
    private int rnrRetryCount = 7;
    private boolean srq;
    private int qpNum;

    public byte[] privateData() { return privateData.clone(); }
    public RdmaConnParam privateData(byte[] v) { privateData = v == null ? new byte[0] : v.clone(); return this; }
    public int responderResources() { return responderResources; }
    public RdmaConnParam responderResources(int v) { responderResources = v; return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public RdmaConnParam initiatorDepth(int v) { initiatorDepth = v; return this; }
    public int flowControl() { return flowControl; }
    public RdmaConnParam flowControl(int v) { flowControl = v; return this; }
    public int retryCount() { return retryCount; }
    public RdmaConnParam retryCount(int v) { retryCount = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public RdmaConnParam rnrRetryCount(int v) { rnrRetryCount = v; return this; }
    public boolean srq() { return srq; }
    public RdmaConnParam srq(boolean v) { srq = v; return this; }
    /** The peer's QPN, in an event's param. */
    public int qpNum() { return qpNum; }
    public RdmaConnParam qpNum(int v) { qpNum = v; return this; }
}
