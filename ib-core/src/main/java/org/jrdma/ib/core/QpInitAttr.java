package org.jrdma.ib.core;

/** {@code struct ib_qp_init_attr}: what {@link ProtectionDomain#createQp} needs. */
public final class QpInitAttr {
    private QpType qpType = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private QpCap cap = new QpCap();
    private SignalType sqSigType = SignalType.REQ_WR;
    private EventHandler eventHandler;
    private int portNum;
    private Object context;

    public QpType qpType() { return qpType; }
    public QpInitAttr qpType(QpType v) { qpType = v; return this; }
    public CompletionQueue sendCq() { return sendCq; }
    public QpInitAttr sendCq(CompletionQueue v) { sendCq = v; return this; }
    public CompletionQueue recvCq() { return recvCq; }
    public QpInitAttr recvCq(CompletionQueue v) { recvCq = v; return this; }
    /** Both CQs at once. */
    public QpInitAttr cq(CompletionQueue v) { sendCq = v; recvCq = v; return this; }
    public SharedReceiveQueue srq() { return srq; }
    public QpInitAttr srq(SharedReceiveQueue v) { srq = v; return this; }
    public QpCap cap() { return cap; }
    public QpInitAttr cap(QpCap v) { cap = v; return this; }
    public SignalType sqSigType() { return sqSigType; }
    public QpInitAttr sqSigType(SignalType v) { sqSigType = v; return this; }
    /** Receives this QP's async events (QP_FATAL, SQ_DRAINED, COMM_EST, ...). */
    public EventHandler eventHandler() { return eventHandler; }
    public QpInitAttr eventHandler(EventHandler v) { eventHandler = v; return this; }
    /** The port of an SMI or GSI QP; unused for other types. */
    public int portNum() { return portNum; }
    public QpInitAttr portNum(int v) { portNum = v; return this; }
    /** Whatever the ULP wants back from {@link QueuePair#context()}. */
    public Object context() { return context; }
    public QpInitAttr context(Object v) { context = v; return this; }
}
