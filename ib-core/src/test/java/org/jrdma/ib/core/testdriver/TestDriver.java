package org.jrdma.ib.core.testdriver;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.AtomicCap;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.Mtu;
import org.jrdma.ib.core.MrType;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.PhysState;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.PostException;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcOpcode;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.spi.CqContext;
import org.jrdma.ib.core.spi.DeviceOps;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.DriverAh;
import org.jrdma.ib.core.spi.DriverCq;
import org.jrdma.ib.core.spi.DriverMr;
import org.jrdma.ib.core.spi.DriverMw;
import org.jrdma.ib.core.spi.DriverPd;
import org.jrdma.ib.core.spi.DriverQp;
import org.jrdma.ib.core.spi.DriverSrq;
import org.jrdma.ib.core.spi.PortImmutable;
import org.jrdma.ib.core.spi.QpContext;
import org.jrdma.ib.core.spi.SrqContext;

/**
 * A minimal driver for testing ib-core: resources are bookkeeping only and no data moves. Posted
 * work requests wait in their queues until the QP goes to ERR, which flushes them to the CQ with
 * WR_FLUSH_ERR (and runs the CQ's handler if armed), exactly as a real driver must. Counters let
 * tests see what ib-core asked of the driver.
 */
public class TestDriver implements DeviceOps {
    public static final int MAX_QP_WR = 1024;

    private final int ports;
    private final LinkLayer linkLayer;
    private final long guid;
    private final AtomicInteger nextQpn = new AtomicInteger(0x11);
    private final AtomicInteger nextKey = new AtomicInteger(1);
    /** Driver objects alive now, for leak checks. */
    public final AtomicInteger live = new AtomicInteger();
    public final AtomicInteger destroyCalls = new AtomicInteger();

    public TestDriver(int ports, LinkLayer linkLayer, long guid) {
        this.ports = ports;
        this.linkLayer = linkLayer;
        this.guid = guid;
    }

    public DeviceRegistration registration(String namePattern) {
        return new DeviceRegistration(namePattern, "testdrv", this).nodeGuid(guid).physPortCnt(ports);
    }

    @Override
    public DeviceAttr queryDevice() {
        return new DeviceAttr().fwVer("1.0.0").sysImageGuid(guid).maxMrSize(1L << 32).pageSizeCap(0xfffff000L)
                .vendorId(0xffffff).maxQp(64).maxQpWr(MAX_QP_WR).maxSendSge(4).maxRecvSge(4).maxSgeRd(4)
                .maxCq(64).maxCqe(4096).maxMr(64).maxPd(16).maxQpRdAtom(16).maxResRdAtom(1024)
                .maxQpInitRdAtom(16).atomicCap(AtomicCap.HCA).maxMw(16).maxAh(16).maxSrq(8).maxSrqWr(256)
                .maxSrqSge(4).maxFastRegPageListLen(512).maxPkeys(1).maxInlineData(64).maxMcastGrp(8)
                .maxMcastQpAttach(8).maxTotalMcastQpAttach(64);
    }

    @Override
    public PortAttr queryPort(int portNum) {
        return new PortAttr().state(PortState.ACTIVE).physState(PhysState.LINK_UP).maxMtu(Mtu.MTU_4096)
                .activeMtu(Mtu.MTU_1024).gidTblLen(4).pkeyTblLen(1).lid(linkLayer == LinkLayer.INFINIBAND ? portNum : 0)
                .smLid(linkLayer == LinkLayer.INFINIBAND ? 1 : 0);
    }

    @Override
    public PortImmutable getPortImmutable(int portNum) {
        return new PortImmutable(linkLayer, 1, 4, 256);
    }

    @Override
    public int queryPkey(int portNum, int index) {
        return 0xffff;
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        return index == 0 ? Gid.of(Gid.DEFAULT_SUBNET_PREFIX, guid + portNum) : Gid.ZERO;
    }

    static final class Pd implements DriverPd {
    }

    @Override
    public DriverPd allocPd() {
        live.incrementAndGet();
        return new Pd();
    }

    @Override
    public void deallocPd(DriverPd pd) {
        destroyed();
    }

    private void destroyed() {
        live.decrementAndGet();
        destroyCalls.incrementAndGet();
    }

    /** A CQ: a bounded ring of completions. */
    public static final class Cq implements DriverCq {
        final CqContext ctx;
        final int cqe;
        final ArrayDeque<WorkCompletion> ring = new ArrayDeque<>();
        boolean armed;

        Cq(CqContext ctx, int cqe) {
            this.ctx = ctx;
            this.cqe = cqe;
        }

        @Override
        public int cqe() {
            return cqe;
        }

        void push(WorkCompletion wc) {
            boolean notify;
            synchronized (this) {
                if (ring.size() >= cqe) {
                    ctx.overflow();
                    return;
                }
                ring.add(wc);
                notify = armed;
                armed = false;
            }
            if (notify) {
                ctx.completion();
            }
        }
    }

    @Override
    public DriverCq createCq(CqContext ctx, int cqe, int compVector) {
        live.incrementAndGet();
        return new Cq(ctx, cqe);
    }

    @Override
    public void destroyCq(DriverCq cq) {
        destroyed();
    }

    @Override
    public int pollCq(DriverCq dcq, WorkCompletion[] wc, int max) {
        Cq cq = (Cq) dcq;
        synchronized (cq) {
            int n = 0;
            while (n < max && !cq.ring.isEmpty()) {
                wc[n++].copyFrom(cq.ring.poll());
            }
            return n;
        }
    }

    @Override
    public boolean reqNotifyCq(DriverCq dcq, CqNotify type, boolean reportMissedEvents) {
        Cq cq = (Cq) dcq;
        synchronized (cq) {
            cq.armed = true;
            return reportMissedEvents && !cq.ring.isEmpty();
        }
    }

    /** A QP: its queues hold posted wr_ids until flushed. */
    public static final class Qp implements DriverQp {
        final QpContext ctx;
        final int qpn;
        final QpType type;
        final QpCap cap;
        final Cq scq;
        final Cq rcq;
        final ArrayDeque<Long> sq = new ArrayDeque<>();
        final ArrayDeque<Long> rq = new ArrayDeque<>();
        QpState state = QpState.RESET;

        Qp(QpContext ctx, int qpn, QpInitAttr a, Cq scq, Cq rcq) {
            this.ctx = ctx;
            this.qpn = qpn;
            this.type = a.qpType();
            this.cap = a.cap().copy();
            this.scq = scq;
            this.rcq = rcq;
        }

        @Override
        public int qpNum() {
            return qpn;
        }

        @Override
        public QpCap cap() {
            return cap;
        }

        synchronized int outstanding() {
            return sq.size() + rq.size();
        }
    }

    @Override
    public DriverQp createQp(QpContext ctx, DriverPd pd, QpInitAttr attr, DriverCq sendCq, DriverCq recvCq,
            DriverSrq srq) {
        live.incrementAndGet();
        int qpn = switch (attr.qpType()) {
            case SMI -> 0;
            case GSI -> 1;
            default -> nextQpn.getAndIncrement();
        };
        return new Qp(ctx, qpn, attr, (Cq) sendCq, (Cq) recvCq);
    }

    @Override
    public void modifyQp(DriverQp dqp, QpAttr attr) {
        Qp qp = (Qp) dqp;
        if (attr.has(QpAttrMask.STATE)) {
            synchronized (qp) {
                qp.state = attr.state();
            }
            if (attr.state() == QpState.ERR) {
                flush(qp);
            } else if (attr.state() == QpState.RESET) {
                synchronized (qp) {
                    qp.sq.clear();
                    qp.rq.clear();
                }
            }
        }
    }

    private static void flush(Qp qp) {
        while (true) {
            Long id;
            boolean send;
            synchronized (qp) {
                id = qp.sq.poll();
                send = id != null;
                if (id == null) {
                    id = qp.rq.poll();
                }
            }
            if (id == null) {
                return;
            }
            WorkCompletion wc = new WorkCompletion().wrId(id).status(WcStatus.WR_FLUSH_ERR)
                    .opcode(send ? WcOpcode.SEND : WcOpcode.RECV).qp(qp.ctx.qp()).qpNum(qp.qpn);
            (send ? qp.scq : qp.rcq).push(wc);
        }
    }

    @Override
    public QpAttr queryQp(DriverQp dqp) {
        Qp qp = (Qp) dqp;
        synchronized (qp) {
            return new QpAttr().state(qp.state).cap(qp.cap.copy());
        }
    }

    @Override
    public void destroyQp(DriverQp qp) {
        flush((Qp) qp);
        destroyed();
    }

    @Override
    public void postSend(DriverQp dqp, SendWr wr) {
        Qp qp = (Qp) dqp;
        for (SendWr w = wr; w != null; w = w.next()) {
            synchronized (qp) {
                if (qp.state != QpState.RTS && qp.state != QpState.ERR) {
                    throw new PostException(Errno.EINVAL, "QP " + qp.qpn + " is " + qp.state + ", not RTS", w);
                }
                if (qp.sq.size() >= qp.cap.maxSendWr()) {
                    throw new PostException(Errno.ENOMEM, "send queue of QP " + qp.qpn + " is full", w);
                }
                if (w.numSge() > qp.cap.maxSendSge()) {
                    throw new PostException(Errno.EINVAL, "too many SGEs", w);
                }
                qp.sq.add(w.wrId());
            }
        }
        if (qp.state == QpState.ERR) {
            flush(qp);
        }
    }

    @Override
    public void postRecv(DriverQp dqp, RecvWr wr) {
        Qp qp = (Qp) dqp;
        for (RecvWr w = wr; w != null; w = w.next()) {
            synchronized (qp) {
                if (qp.state == QpState.RESET) {
                    throw new PostException(Errno.EINVAL, "QP " + qp.qpn + " is RESET", w);
                }
                if (qp.rq.size() >= qp.cap.maxRecvWr()) {
                    throw new PostException(Errno.ENOMEM, "receive queue of QP " + qp.qpn + " is full", w);
                }
                qp.rq.add(w.wrId());
            }
        }
        if (qp.state == QpState.ERR) {
            flush(qp);
        }
    }

    static final class Mr implements DriverMr {
        final int key;
        final long iova;
        final long length;
        final int access;

        Mr(int key, long iova, long length, int access) {
            this.key = key;
            this.iova = iova;
            this.length = length;
            this.access = access;
        }

        @Override public int lkey() { return key; }
        @Override public int rkey() { return key; }
        @Override public long iova() { return iova; }
        @Override public long length() { return length; }
        @Override public int access() { return access; }
    }

    @Override
    public DriverMr regUserMr(DriverPd pd, ByteBuffer buffer, long iova, int access) {
        live.incrementAndGet();
        return new Mr(nextKey.getAndIncrement() << 8 | 0x5a, iova, buffer.remaining(), access);
    }

    @Override
    public DriverMr allocMr(DriverPd pd, MrType type, int maxNumSg) {
        live.incrementAndGet();
        return new Mr(nextKey.getAndIncrement() << 8, 0, 0, 0);
    }

    @Override
    public void deregMr(DriverMr mr) {
        destroyed();
    }

    @Override
    public DriverMw allocMw(DriverPd pd, MwType type) {
        live.incrementAndGet();
        int k = nextKey.getAndIncrement() << 8;
        return () -> k;
    }

    @Override
    public void deallocMw(DriverMw mw) {
        destroyed();
    }

    @Override
    public DriverAh createAh(DriverPd pd, AhAttr attr) {
        live.incrementAndGet();
        return new DriverAh() {
        };
    }

    @Override
    public void destroyAh(DriverAh ah) {
        destroyed();
    }

    static final class Srq implements DriverSrq {
        final SrqContext ctx;
        SrqAttr attr;

        Srq(SrqContext ctx, SrqAttr attr) {
            this.ctx = ctx;
            this.attr = attr;
        }
    }

    @Override
    public DriverSrq createSrq(SrqContext ctx, DriverPd pd, SrqAttr attr) {
        live.incrementAndGet();
        return new Srq(ctx, attr);
    }

    @Override
    public void modifySrq(DriverSrq srq, SrqAttr attr, Set<SrqAttrMask> mask) {
        Srq s = (Srq) srq;
        if (mask.contains(SrqAttrMask.MAX_WR)) {
            s.attr.maxWr(attr.maxWr());
        }
        if (mask.contains(SrqAttrMask.LIMIT)) {
            s.attr.srqLimit(attr.srqLimit());
        }
    }

    @Override
    public SrqAttr querySrq(DriverSrq srq) {
        return ((Srq) srq).attr.copy();
    }

    @Override
    public void destroySrq(DriverSrq srq) {
        destroyed();
    }

    /** Test hook: an SRQ event, as a driver raises it. */
    public static void raise(DriverSrq srq, org.jrdma.ib.core.EventType type) {
        ((Srq) srq).ctx.event(type);
    }
}
