package org.jrdma.ib.core;

/**
 * {@code struct ib_event}: an asynchronous event. Device and port events go to the handlers
 * registered on the device; QP, CQ and SRQ events to the handler of that object, as in Linux.
 * Exactly one of {@link #portNum()}, {@link #qp()}, {@link #cq()}, {@link #srq()} is set, as the
 * event's {@link EventType#scope() scope} says (none for DEVICE_FATAL).
 */
public final class AsyncEvent {
    private final EventType type;
    private final IbDevice device;
    private final int portNum;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SharedReceiveQueue srq;

    public AsyncEvent(EventType type, IbDevice device, int portNum, QueuePair qp, CompletionQueue cq,
            SharedReceiveQueue srq) {
        this.type = type;
        this.device = device;
        this.portNum = portNum;
        this.qp = qp;
        this.cq = cq;
        this.srq = srq;
    }

    public EventType type() { return type; }
    public IbDevice device() { return device; }
    public int portNum() { return portNum; }
    public QueuePair qp() { return qp; }
    public CompletionQueue cq() { return cq; }
    public SharedReceiveQueue srq() { return srq; }

    @Override
    public String toString() {
        String what = switch (type.scope()) {
            case PORT -> "port " + portNum;
            case QP -> "QP " + (qp == null ? "?" : qp.qpNum());
            case CQ -> "CQ " + (cq == null ? "?" : cq.id());
            case SRQ -> "SRQ " + (srq == null ? "?" : srq.id());
            case DEVICE -> "device";
        };
        return (device == null ? "?" : device.name()) + ": " + type.message() + " (" + what + ")";
    }
}
