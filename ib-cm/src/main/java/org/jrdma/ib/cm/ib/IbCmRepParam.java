package org.jrdma.ib.cm.ib;

/** {@code struct ib_cm_rep_param}: what a REP carries ({@link IbCmId#sendRep}). */
public final class IbCmRepParam {
    private int qpNum;
    private int startingPsn;
    private byte[] privateData = new byte[0];
    private int responderResources;
    private int initiatorDepth;
    private boolean failoverAccepted;
    private boolean flowControl;
    private int rnrRetryCount = 7;
    private boolean srq;

    public int qpNum() { return qpNum; }
    public IbCmRepParam qpNum(int v) { qpNum = v; return this; }
    /** The first PSN this side's receive queue expects (what its QP's RTR {@code rq_psn} must be). */
    public int startingPsn() { return startingPsn; }
    public IbCmRepParam startingPsn(int v) { startingPsn = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    public IbCmRepParam privateData(byte[] v) { privateData = v == null ? new byte[0] : v.clone(); return this; }
    public int responderResources() { return responderResources; }
    public IbCmRepParam responderResources(int v) { responderResources = v; return this; }
    public int initiatorDepth() { return initiatorDepth; }
    public IbCmRepParam initiatorDepth(int v) { initiatorDepth = v; return this; }
    public boolean failoverAccepted() { return failoverAccepted; }
    public IbCmRepParam failoverAccepted(boolean v) { failoverAccepted = v; return this; }
    public boolean flowControl() { return flowControl; }
    public IbCmRepParam flowControl(boolean v) { flowControl = v; return this; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public IbCmRepParam rnrRetryCount(int v) { rnrRetryCount = v; return this; }
    public boolean srq() { return srq; }
    public IbCmRepParam srq(boolean v) { srq = v; return this; }
}
