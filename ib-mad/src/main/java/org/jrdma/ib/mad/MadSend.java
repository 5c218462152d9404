package org.jrdma.ib.mad;

import org.jrdma.ib.core.AhAttr;

/**
 * {@code struct ib_mad_send_buf}: one MAD to send and where to. For a request, set a timeout: the send
 * then waits for the response (by TID), resending up to {@code retries} times.
 */
public final class MadSend {
    private final Mad mad;
    private AhAttr ah;
    private int remoteQpn = 1;
    private int remoteQkey = MadService.QP1_QKEY;
    private int pkeyIndex;
    private int timeoutMs;
    private int retries;
    private Object context;
    private int rmppDataLen = -1;

    public MadSend(Mad mad) {
        this.mad = mad;
    }

    public Mad mad() { return mad; }
    /** The destination (LID or, on RoCE, the GRH with the destination GID). */
    public AhAttr ah() { return ah; }
    public MadSend ah(AhAttr v) { ah = v; return this; }
    public int remoteQpn() { return remoteQpn; }
    public MadSend remoteQpn(int v) { remoteQpn = v; return this; }
    public int remoteQkey() { return remoteQkey; }
    public MadSend remoteQkey(int v) { remoteQkey = v; return this; }
    public int pkeyIndex() { return pkeyIndex; }
    public MadSend pkeyIndex(int v) { pkeyIndex = v; return this; }
    /** 0: no response expected (done once sent). */
    public int timeoutMs() { return timeoutMs; }
    public MadSend timeoutMs(int v) { timeoutMs = v; return this; }
    public int retries() { return retries; }
    public MadSend retries(int v) { retries = v; return this; }
    /**
     * RMPP, as {@code ib_create_send_mad} with {@code rmpp_active}: the MAD's class data after the class
     * header ({@code ib_get_mad_data_offset}: 56 bytes for SA, 36 otherwise) is {@code dataLen} bytes long
     * and goes out in segments, windowed by the receiver's ACKs (IBTA 13.6); the send is done when the
     * last segment is acknowledged. A MAD longer than 256 bytes is sent this way without asking. GSI only.
     */
    public MadSend rmpp(int dataLen) {
        if (dataLen < 0) {
            throw new IllegalArgumentException("RMPP data length " + dataLen);
        }
        rmppDataLen = dataLen;
        return this;
    }
    /** The RMPP data length, or -1 for a MAD sent as it is. */
    public int rmppDataLen() { return rmppDataLen; }
    /** Whatever the sender wants back in its callbacks. */
    public Object context() { return context; }
    public MadSend context(Object v) { context = v; return this; }

    @Override
    public String toString() {
        return "MadSend[" + mad + " to " + ah + " qpn " + remoteQpn + " timeout " + timeoutMs + " ms x" + retries + "]";
    }
}
