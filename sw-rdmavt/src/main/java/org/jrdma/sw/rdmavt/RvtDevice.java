package org.jrdma.sw.rdmavt;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.MrType;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.jrdma.ib.core.spi.DeviceOps;
import org.jrdma.ib.core.spi.DriverAh;
import org.jrdma.ib.core.spi.DriverCq;
import org.jrdma.ib.core.spi.DriverMr;
import org.jrdma.ib.core.spi.DriverMw;
import org.jrdma.ib.core.spi.DriverPd;
import org.jrdma.ib.core.spi.DriverQp;
import org.jrdma.ib.core.spi.DriverSrq;
import org.jrdma.ib.core.spi.QpContext;
import org.jrdma.ib.core.spi.SrqContext;

/**
 * The verbs every soft driver shares ({@code rvt_*} in rdmavt, the object half of {@code rxe_verbs.c}).
 * A driver extends this with its ports (query_port, GIDs, P_Keys) and its engine: {@link #sqPosted}
 * is told when a QP has send work, and runs it on a driver thread.
 */
public abstract class RvtDevice implements DeviceOps {
    protected final DeviceAttr attr;
    public final KeyTable keys;
    private final QpnTable<RvtQp> qpTable = new QpnTable<>(RvtQp[]::new);
    private final AtomicInteger nextQpn = new AtomicInteger(0x11);
    private final AtomicInteger nextPdn = new AtomicInteger(1);
    /** The multicast groups the device's QPs are attached to. */
    public final RvtMcastTable mcast;

    protected RvtDevice(DeviceAttr attr) {
        this(attr, true);
    }

    /**
     * @param mcastByLid whether a group is named by MGID and MLID together (InfiniBand, rdmavt) or by the MGID alone
     *        (RoCE: rxe ignores the MLID)
     */
    protected RvtDevice(DeviceAttr attr, boolean mcastByLid) {
        this.attr = attr.copy();
        this.keys = new KeyTable(attr.maxMr() + attr.maxMw());
        this.mcast = new RvtMcastTable(attr, mcastByLid, new RvtMcastTable.Listener() {
            @Override
            public void groupAdded(Gid mgid) {
                mcastGroupAdded(mgid);
            }

            @Override
            public void groupRemoved(Gid mgid) {
                mcastGroupRemoved(mgid);
            }
        });
    }

    @Override
    public DeviceAttr queryDevice() {
        return attr.copy();
    }

    // ---------------------------------------------------------------- driver hooks

    /** A QP has new send work (or was moved to RTS with work queued): run it on a driver thread. */
    protected abstract void sqPosted(RvtQp qp);

    /** Receives were posted (a sender waiting on RNR may go on). */
    protected void rqPosted(RvtQp qp) {
    }

    /** The QP's state was modified by the ULP. */
    protected void stateChanged(RvtQp qp) {
    }

    /** The largest UD message the QP may send (its port's active MTU). */
    protected abstract int udMtu(RvtQp qp);

    /** The LID of a port (0 on RoCE), for {@code wc.slid}. */
    protected int lid(int port) {
        return 0;
    }

    /** The first QP joined group {@code mgid} ({@code rxe_mcast_add}): a driver subscribes its port to it. */
    protected void mcastGroupAdded(Gid mgid) {
    }

    /** The last QP left group {@code mgid} ({@code rxe_mcast_delete}). */
    protected void mcastGroupRemoved(Gid mgid) {
    }

    /** Makes a QP object; a driver with more per-QP state returns a subclass. */
    protected RvtQp newQp(QpContext ctx, int qpn, RvtPd pd, QpInitAttr a, RvtCq scq, RvtCq rcq, RvtSrq srq) {
        return new RvtQp(this, ctx, qpn, pd, a, scq, rcq, srq);
    }

    /** The QP of number {@code qpn}, or null: once per received packet, so without boxing the number. */
    public RvtQp qp(int qpn) {
        return qpTable.get(qpn);
    }

    public Collection<RvtQp> qps() {
        return java.util.Arrays.asList(qpTable.all());
    }

    /** Every QP (QP0 and QP1 included) at the time of the call, as an array the caller must not change. */
    public RvtQp[] qpArray() {
        return qpTable.all();
    }

    private static int randomKeyByte() {
        return ThreadLocalRandom.current().nextInt(256);
    }

    // ---------------------------------------------------------------- PD, AH

    @Override
    public DriverPd allocPd() {
        return new RvtPd(nextPdn.getAndIncrement());
    }

    @Override
    public void deallocPd(DriverPd pd) {
    }

    @Override
    public DriverAh createAh(DriverPd pd, AhAttr attr) {
        return new RvtAh((RvtPd) pd, attr);
    }

    @Override
    public void destroyAh(DriverAh ah) {
    }

    // ---------------------------------------------------------------- CQ

    @Override
    public DriverCq createCq(CqContext ctx, int cqe, int compVector) {
        return new RvtCq(ctx, cqe);
    }

    @Override
    public void destroyCq(DriverCq cq) {
    }

    @Override
    public int pollCq(DriverCq cq, WorkCompletion[] wc, int max) {
        return ((RvtCq) cq).poll(wc, max);
    }

    @Override
    public boolean reqNotifyCq(DriverCq cq, CqNotify type, boolean reportMissedEvents) {
        return ((RvtCq) cq).arm(type, reportMissedEvents);
    }

    @Override
    public void resizeCq(DriverCq cq, int cqe) {
        ((RvtCq) cq).resize(cqe);
    }

    // ---------------------------------------------------------------- QP

    @Override
    public DriverQp createQp(QpContext ctx, DriverPd pd, QpInitAttr a, DriverCq sendCq, DriverCq recvCq,
            DriverSrq srq) {
        int qpn = switch (a.qpType()) {
            case SMI -> 0;
            case GSI -> 1;
            default -> allocQpn();
        };
        RvtQp qp = newQp(ctx, qpn, (RvtPd) pd, a, (RvtCq) sendCq, (RvtCq) recvCq, (RvtSrq) srq);
        if (!a.qpType().isSpecial()) {
            qpTable.put(qpn, qp);
        } else {
            qpTable.putSpecial(a.portNum(), a.qpType() == QpType.GSI, qp);
        }
        return qp;
    }

    /** The SMI or GSI QP of a port, or null. */
    public RvtQp specialQp(QpType type, int port) {
        return qpTable.special(port, type == QpType.GSI);
    }

    private int allocQpn() {
        for (int i = 0; i < 1 << 24; i++) {
            int qpn = nextQpn.getAndIncrement() & 0xffffff;
            if (qpn >= 0x11 && !qpTable.contains(qpn)) {
                return qpn;
            }
        }
        throw new VerbsException(Errno.ENOMEM, "no free QP number");
    }

    @Override
    public void modifyQp(DriverQp qp, QpAttr attr) {
        ((RvtQp) qp).modify(attr);
    }

    @Override
    public QpAttr queryQp(DriverQp qp) {
        return ((RvtQp) qp).query();
    }

    @Override
    public void destroyQp(DriverQp dqp) {
        RvtQp qp = (RvtQp) dqp;
        qp.modify(new QpAttr().state(org.jrdma.ib.core.QpState.ERR));
        qp.destroyed = true;
        mcast.detachAll(qp);
        if (qp.type.isSpecial()) {
            qpTable.removeSpecial(qp.port(), qp.type == QpType.GSI, qp);
        } else {
            qpTable.remove(qp.qpn, qp);
        }
        // type 2 windows bound to this QP die with it
        keys.forEach(m -> {
            if (m instanceof RvtMw && ((RvtMw) m).qp == qp) {
                ((RvtMw) m).invalidate(m.key(), qp);
            }
        });
    }

    @Override
    public void postSend(DriverQp qp, SendWr wr) {
        ((RvtQp) qp).postSend(wr);
    }

    @Override
    public void postRecv(DriverQp qp, RecvWr wr) {
        ((RvtQp) qp).postRecv(wr);
    }

    @Override
    public void attachMcast(DriverQp qp, Gid gid, int lid) {
        mcast.attach((RvtQp) qp, gid, lid);
    }

    @Override
    public void detachMcast(DriverQp qp, Gid gid, int lid) {
        mcast.detach((RvtQp) qp, gid, lid);
    }

    // ---------------------------------------------------------------- SRQ

    @Override
    public DriverSrq createSrq(SrqContext ctx, DriverPd pd, SrqAttr attr) {
        return new RvtSrq(ctx, (RvtPd) pd, attr);
    }

    @Override
    public void modifySrq(DriverSrq srq, SrqAttr attr, Set<SrqAttrMask> mask) {
        ((RvtSrq) srq).modify(attr, mask.contains(SrqAttrMask.MAX_WR), mask.contains(SrqAttrMask.LIMIT));
    }

    @Override
    public SrqAttr querySrq(DriverSrq srq) {
        return ((RvtSrq) srq).query();
    }

    @Override
    public void destroySrq(DriverSrq srq) {
    }

    @Override
    public void postSrqRecv(DriverSrq srq, RecvWr wr) {
        ((RvtSrq) srq).post(wr);
    }

    // ---------------------------------------------------------------- MR, MW

    @Override
    public DriverMr regUserMr(DriverPd pd, ByteBuffer buffer, long iova, int access) {
        int index = keys.allocate(new Placeholder());
        RvtMr mr = new RvtMr(RvtMr.Type.USER, (RvtPd) pd, index, randomKeyByte(), 0);
        mr.set(buffer, iova, access);
        keys.replace(index, mr);
        return mr;
    }

    @Override
    public void reregUserMr(DriverMr dmr, ByteBuffer buffer, long iova, int access) {
        RvtMr mr = (RvtMr) dmr;
        if (mr.type != RvtMr.Type.USER) {
            throw new VerbsException(Errno.EINVAL, "rereg: only user MRs can be re-registered");
        }
        if (mr.boundWindows.get() > 0) {
            throw new VerbsException(Errno.EBUSY, "rereg: memory windows are bound to this MR");
        }
        synchronized (mr) {
            mr.set(buffer, iova, access);
        }
    }

    @Override
    public DriverMr allocMr(DriverPd pd, MrType type, int maxNumSg) {
        int index = keys.allocate(new Placeholder());
        RvtMr mr = new RvtMr(RvtMr.Type.FAST_REG, (RvtPd) pd, index, randomKeyByte(), maxNumSg);
        keys.replace(index, mr);
        return mr;
    }

    @Override
    public void mapMrSg(DriverMr mr, ByteBuffer buffer, long iova) {
        ((RvtMr) mr).map(buffer, iova);
    }

    @Override
    public void deregMr(DriverMr dmr) {
        RvtMr mr = (RvtMr) dmr;
        if (mr.boundWindows.get() > 0) {
            throw new VerbsException(Errno.EBUSY, "dereg: " + mr.boundWindows.get()
                    + " memory windows are bound to this MR");
        }
        mr.state = RvtMem.State.INVALID;
        keys.free(mr.index);
    }

    @Override
    public DriverMw allocMw(DriverPd pd, MwType type) {
        int index = keys.allocate(new Placeholder());
        RvtMw mw = new RvtMw(type, (RvtPd) pd, index, randomKeyByte());
        keys.replace(index, mw);
        return mw;
    }

    @Override
    public void deallocMw(DriverMw dmw) {
        RvtMw mw = (RvtMw) dmw;
        mw.dealloc();
        keys.free(mw.index);
    }

    /** Holds an index while its object is built. */
    private static final class Placeholder extends RvtMem {
        Placeholder() {
            state = State.INVALID;
        }

        @Override
        public int key() {
            return -1;
        }

        @Override
        public RvtPd pd() {
            return null;
        }
    }
}
