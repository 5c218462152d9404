package org.jrdma.ib.core;

/**
 * {@code struct ib_wc}: one completion. Mutable on purpose: {@link CompletionQueue#poll} fills an
 * array the caller keeps, so polling allocates nothing.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private QueuePair qp;
    private int qpNum;
    private int immData;
    private int invalidateRkey;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;
    private int dlidPathBits;
    private int portNum;

    /** Resets every field, so a driver fills a reused object from a clean state. */
    public WorkCompletion clear() {
        wrId = 0;
        status = WcStatus.SUCCESS;
        opcode = WcOpcode.SEND;
        vendorErr = 0;
        byteLen = 0;
        qp = null;
        qpNum = 0;
        immData = 0;
        invalidateRkey = 0;
        srcQp = 0;
        wcFlags = 0;
        pkeyIndex = 0;
        slid = 0;
        sl = 0;
        dlidPathBits = 0;
        portNum = 0;
        return this;
    }

    public WorkCompletion copyFrom(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        vendorErr = o.vendorErr;
        byteLen = o.byteLen;
        qp = o.qp;
        qpNum = o.qpNum;
        immData = o.immData;
        invalidateRkey = o.invalidateRkey;
        srcQp = o.srcQp;
        wcFlags = o.wcFlags;
        pkeyIndex = o.pkeyIndex;
        slid = o.slid;
        sl = o.sl;
        dlidPathBits = o.dlidPathBits;
        portNum = o.portNum;
        return this;
    }

    public long wrId() { return wrId; }
    public WorkCompletion wrId(long v) { wrId = v; return this; }
    public WcStatus status() { return status; }
    public WorkCompletion status(WcStatus v) { status = v; return this; }
    /** Valid only when {@link #status()} is SUCCESS, as in the kernel. */
    public WcOpcode opcode() { return opcode; }
    public WorkCompletion opcode(WcOpcode v) { opcode = v; return this; }
    public int vendorErr() { return vendorErr; }
    public WorkCompletion vendorErr(int v) { vendorErr = v; return this; }
    public int byteLen() { return byteLen; }
    public WorkCompletion byteLen(int v) { byteLen = v; return this; }
    public QueuePair qp() { return qp; }
    public WorkCompletion qp(QueuePair v) { qp = v; return this; }
    public int qpNum() { return qpNum; }
    public WorkCompletion qpNum(int v) { qpNum = v; return this; }
    /** Valid with {@link WcFlags#WITH_IMM}; host order. */
    public int immData() { return immData; }
    public WorkCompletion immData(int v) { immData = v; return this; }
    /** Valid with {@link WcFlags#WITH_INVALIDATE}. */
    public int invalidateRkey() { return invalidateRkey; }
    public WorkCompletion invalidateRkey(int v) { invalidateRkey = v; return this; }
    /** UD and GSI: the sender's QPN. */
    public int srcQp() { return srcQp; }
    public WorkCompletion srcQp(int v) { srcQp = v; return this; }
    public int wcFlags() { return wcFlags; }
    public WorkCompletion wcFlags(int v) { wcFlags = v; return this; }
    public int pkeyIndex() { return pkeyIndex; }
    public WorkCompletion pkeyIndex(int v) { pkeyIndex = v; return this; }
    public int slid() { return slid; }
    public WorkCompletion slid(int v) { slid = v; return this; }
    public int sl() { return sl; }
    public WorkCompletion sl(int v) { sl = v; return this; }
    public int dlidPathBits() { return dlidPathBits; }
    public WorkCompletion dlidPathBits(int v) { dlidPathBits = v; return this; }
    public int portNum() { return portNum; }
    public WorkCompletion portNum(int v) { portNum = v; return this; }

    @Override
    public String toString() {
        return "WorkCompletion{wrId=" + wrId + ", " + status + ", " + opcode + ", byteLen=" + byteLen
                + ", qpNum=" + qpNum + ", flags=" + wcFlags + "}";
    }
}
