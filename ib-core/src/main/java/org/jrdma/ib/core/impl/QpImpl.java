package org.jrdma.ib.core.impl;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.EventHandler;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DriverQp;
import org.jrdma.ib.core.spi.QpContext;

final class QpImpl extends AbstractResource implements QueuePair, QpContext {
    final PdImpl pd;
    final QpType qpType;
    final CqImpl sendCq;
    final CqImpl recvCq;
    final SrqImpl srq;
    private final EventHandler eventHandler;
    private final Object context;
    DriverQp dqp;
    volatile QpState state = QpState.RESET;
    /** The port the QP is bound to (from INIT, or the SMI/GSI port); 0 until known. */
    volatile int port;
    volatile boolean quiesced;

    private QpImpl(DeviceImpl device, PdImpl pd, QpInitAttr a) {
        super(device, pd.owner, ResourceType.QP);
        this.pd = pd;
        this.qpType = a.qpType();
        this.sendCq = (CqImpl) a.sendCq();
        this.recvCq = (CqImpl) a.recvCq();
        this.srq = (SrqImpl) a.srq();
        this.eventHandler = a.eventHandler();
        this.context = a.context();
        this.port = qpType.isSpecial() ? a.portNum() : 0;
    }

    static QpImpl create(DeviceImpl device, PdImpl pd, QpInitAttr a) {
        Validate.qpInit(device, pd, a);
        device.checkCount(ResourceType.QP, device.attr.maxQp());
        QpImpl qp = new QpImpl(device, pd, a);
        qp.dqp = device.ops.createQp(qp, pd.dpd, a, qp.sendCq.dcq, qp.recvCq.dcq, qp.srq == null ? null : qp.srq.dsrq);
        qp.id = qp.dqp.qpNum();
        qp.uses(pd);
        qp.uses(qp.sendCq);
        if (qp.recvCq != qp.sendCq) {
            qp.uses(qp.recvCq);
        }
        qp.uses(qp.srq);
        return device.track(qp);
    }

    @Override
    public int qpNum() {
        return id;
    }

    @Override
    public QpType qpType() {
        return qpType;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue srq() {
        return srq;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public QpCap cap() {
        return dqp.cap().copy();
    }

    @Override
    public void modify(QpAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "modifyQp: attr is null");
        }
        synchronized (this) {
            checkValid();
            QpState cur = attr.has(QpAttrMask.CUR_STATE) ? attr.curState() : state;
            QpState next = attr.has(QpAttrMask.STATE) ? attr.state() : cur;
            if (attr.has(QpAttrMask.STATE) && next == null || attr.has(QpAttrMask.CUR_STATE) && cur == null) {
                throw new VerbsException(Errno.EINVAL, "modifyQp: state is null");
            }
            String why = QpStateTable.check(cur, next, qpType, attr.mask());
            if (why != null) {
                throw new VerbsException(Errno.EINVAL, device.name() + ": QP " + id + ": " + why);
            }
            Validate.qpAttr(device, this, attr);
            device.ops.modifyQp(dqp, attr.copy());
            if (attr.has(QpAttrMask.PORT)) {
                port = attr.port();
            }
            state = next;
        }
    }

    @Override
    public QpAttr query() {
        checkValid();
        return device.ops.queryQp(dqp);
    }

    @Override
    public void postSend(SendWr wr) {
        if (!valid || !device.isAlive()) {
            checkValid();
        }
        Validate.notNull(wr, "postSend", "wr");
        device.ops.postSend(dqp, wr);
    }

    @Override
    public void postRecv(RecvWr wr) {
        if (!valid || !device.isAlive()) {
            checkValid();
        }
        Validate.notNull(wr, "postRecv", "wr");
        if (srq != null) {
            throw new VerbsException(Errno.EINVAL, device.name() + ": QP " + id + " receives from SRQ " + srq.id
                    + "; post to the SRQ");
        }
        device.ops.postRecv(dqp, wr);
    }

    @Override
    public void attachMcast(Gid gid, int lid) {
        checkMcast(gid, lid, "attachMcast");
        device.ops.attachMcast(dqp, gid, lid);
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        checkMcast(gid, lid, "detachMcast");
        device.ops.detachMcast(dqp, gid, lid);
    }

    /** {@code ib_attach_mcast}'s checks: a UD QP, a multicast GID, and on InfiniBand a multicast LID. */
    private void checkMcast(Gid gid, int lid, String op) {
        checkValid();
        if (qpType != QpType.UD) {
            throw new VerbsException(Errno.EINVAL, op + ": only UD QPs join multicast groups, QP " + id + " is " + qpType);
        }
        if (!isMulticast(gid)) {
            throw new VerbsException(Errno.EINVAL, op + ": " + gid + " is not a multicast GID (ff00::/8, ::ffff:224.0.0.0/100)");
        }
        if (!validMcastLid(lid)) {
            throw new VerbsException(Errno.EINVAL, op + ": LID 0x" + Integer.toHexString(lid)
                    + " is not a multicast LID (0xc000..0xfffe)");
        }
    }

    /** {@code rdma_is_multicast_addr}: IPv6 multicast, or an IPv4-mapped IPv4 multicast address (RoCE). */
    private static boolean isMulticast(Gid gid) {
        if (gid == null) {
            return false;
        }
        byte[] raw = gid.raw();
        return (raw[0] & 0xff) == 0xff || gid.isV4Mapped() && (raw[12] & 0xf0) == 0xe0;
    }

    /**
     * {@code is_valid_mcast_lid}: the LID matters only on InfiniBand. A QP bound to a port is checked against that
     * port's link layer; before that, against the device's: with any Ethernet port the LID is ignored (RoCE annex).
     */
    private boolean validMcastLid(int lid) {
        boolean ib;
        if (port != 0) {
            ib = device.linkLayer(port) == LinkLayer.INFINIBAND;
        } else {
            ib = true;
            for (int p = 1; p <= device.physPortCnt(); p++) {
                ib &= device.linkLayer(p) == LinkLayer.INFINIBAND;
            }
        }
        return !ib || lid >= 0xc000 && lid <= 0xfffe;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void destroy() {
        destroyChecked();
    }

    @Override
    void driverDestroy() {
        device.ops.destroyQp(dqp);
    }

    @Override
    String summary() {
        return qpType + " " + state + " pdn " + pd.id + " scq " + sendCq.id + " rcq " + recvCq.id
                + (srq == null ? "" : " srq " + srq.id) + (port == 0 ? "" : " port " + port);
    }

    // ---- QpContext: the driver calls up

    @Override
    public QueuePair qp() {
        return this;
    }

    @Override
    public void event(EventType type) {
        if (type.scope() != EventType.Scope.QP) {
            throw new IllegalArgumentException(type + " is not a QP event");
        }
        if (eventHandler != null && valid && !quiesced) {
            DeviceImpl.deliver(eventHandler, new AsyncEvent(type, device, 0, this, null, null));
        }
    }

    @Override
    public void stateChanged(QpState newState) {
        state = newState;
    }
}
