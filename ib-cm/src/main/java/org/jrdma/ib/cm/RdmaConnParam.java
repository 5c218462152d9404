package org.jrdma.ib.cm;

import org.jrdma.ib.core.AhAttr;

/**
 * {@code struct rdma_conn_param}, and in events also {@code struct rdma_ud_param}. Private data: at most
 * 56 bytes in a connect (REQ: 92 less the 36-byte CMA header), 196 in an accept (REP), 148 in a reject;
 * for the UDP port space 180 in a connect (SIDR_REQ: 216 less the CMA header) and 136 in an accept or
 * reject (SIDR_REP).
 *
 * <p>In the ESTABLISHED event of a UDP id (after SIDR_REP) {@link #qpNum()}, {@link #qkey()} and
 * {@link #ahAttr()} are the kernel's {@code event->param.ud.qp_num}, {@code ud.qkey} and {@code ud.ah_attr}:
 * where to send datagrams to the peer's UD QP.
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
    private int qkey;
    private AhAttr ahAttr;

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
    /** {@code ud.qkey}: the peer's Q_Key (UDP port space: {@code RDMA_UDP_QKEY}, 0x01234567), in an event's param. */
    public int qkey() { return qkey; }
    public RdmaConnParam qkey(int v) { qkey = v; return this; }
    /** {@code ud.ah_attr}: the address vector to the peer (a copy; null outside a UDP ESTABLISHED event). */
    public AhAttr ahAttr() { return ahAttr == null ? null : ahAttr.copy(); }
    public RdmaConnParam ahAttr(AhAttr v) { ahAttr = v == null ? null : v.copy(); return this; }
}
