package org.jrdma.ib.core;

import java.util.EnumSet;
import java.util.Set;

/**
 * {@code struct ib_qp_attr} for {@link QueuePair#modify}: each setter also sets its
 * {@link QpAttrMask} bit, so the mask always says exactly what was filled in. A modify is checked
 * against the {@code ib_modify_qp_is_ok} table: required and optional attributes per QP type and
 * transition.
 * <pre>{@code
 * qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(Access.REMOTE_WRITE));
 * }</pre>
 */
public final class QpAttr {
    private final EnumSet<QpAttrMask> mask = EnumSet.noneOf(QpAttrMask.class);
    private QpState state;
    private QpState curState;
    private boolean enSqdAsyncNotify;
    private int accessFlags;
    private int pkeyIndex;
    private int port;
    private int qkey;
    private AhAttr av;
    private Mtu pathMtu;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int rqPsn;
    private int maxRdAtomic;
    private AhAttr altPath;
    private int minRnrTimer;
    private int sqPsn;
    private int maxDestRdAtomic;
    private int pathMigState;
    private QpCap cap;
    private int destQpNum;

    /** The attributes this object carries. */
    public Set<QpAttrMask> mask() {
        return EnumSet.copyOf(mask);
    }

    public boolean has(QpAttrMask m) {
        return mask.contains(m);
    }

    private QpAttr set(QpAttrMask m) {
        mask.add(m);
        return this;
    }

    /** A copy that carries only the attributes named (for drivers and {@code query}). */
    public QpAttr copy() {
        QpAttr c = new QpAttr();
        c.mask.addAll(mask);
        c.state = state;
        c.curState = curState;
        c.enSqdAsyncNotify = enSqdAsyncNotify;
        c.accessFlags = accessFlags;
        c.pkeyIndex = pkeyIndex;
        c.port = port;
        c.qkey = qkey;
        c.av = av == null ? null : av.copy();
        c.pathMtu = pathMtu;
        c.timeout = timeout;
        c.retryCnt = retryCnt;
        c.rnrRetry = rnrRetry;
        c.rqPsn = rqPsn;
        c.maxRdAtomic = maxRdAtomic;
        c.altPath = altPath == null ? null : altPath.copy();
        c.minRnrTimer = minRnrTimer;
        c.sqPsn = sqPsn;
        c.maxDestRdAtomic = maxDestRdAtomic;
        c.pathMigState = pathMigState;
        c.cap = cap == null ? null : cap.copy();
        c.destQpNum = destQpNum;
        return c;
    }

    public QpState state() { return state; }
    public QpAttr state(QpState v) { state = v; return set(QpAttrMask.STATE); }
    public QpState curState() { return curState; }
    public QpAttr curState(QpState v) { curState = v; return set(QpAttrMask.CUR_STATE); }
    public boolean enSqdAsyncNotify() { return enSqdAsyncNotify; }
    public QpAttr enSqdAsyncNotify(boolean v) { enSqdAsyncNotify = v; return set(QpAttrMask.EN_SQD_ASYNC_NOTIFY); }
    public int accessFlags() { return accessFlags; }
    public QpAttr accessFlags(int v) { accessFlags = v; return set(QpAttrMask.ACCESS_FLAGS); }
    public int pkeyIndex() { return pkeyIndex; }
    public QpAttr pkeyIndex(int v) { pkeyIndex = v; return set(QpAttrMask.PKEY_INDEX); }
    public int port() { return port; }
    public QpAttr port(int v) { port = v; return set(QpAttrMask.PORT); }
    public int qkey() { return qkey; }
    public QpAttr qkey(int v) { qkey = v; return set(QpAttrMask.QKEY); }
    /** The primary path ({@code ah_attr}). */
    public AhAttr av() { return av; }
    public QpAttr av(AhAttr v) { av = v; return set(QpAttrMask.AV); }
    public Mtu pathMtu() { return pathMtu; }
    public QpAttr pathMtu(Mtu v) { pathMtu = v; return set(QpAttrMask.PATH_MTU); }
    /** Local ACK timeout: 4.096 us * 2^timeout, 0 = infinite. */
    public int timeout() { return timeout; }
    public QpAttr timeout(int v) { timeout = v; return set(QpAttrMask.TIMEOUT); }
    public int retryCnt() { return retryCnt; }
    public QpAttr retryCnt(int v) { retryCnt = v; return set(QpAttrMask.RETRY_CNT); }
    /** RNR retries, 7 = infinite. */
    public int rnrRetry() { return rnrRetry; }
    public QpAttr rnrRetry(int v) { rnrRetry = v; return set(QpAttrMask.RNR_RETRY); }
    public int rqPsn() { return rqPsn; }
    public QpAttr rqPsn(int v) { rqPsn = v; return set(QpAttrMask.RQ_PSN); }
    /** Initiator depth: outstanding RDMA READ/atomic this QP may issue. */
    public int maxRdAtomic() { return maxRdAtomic; }
    public QpAttr maxRdAtomic(int v) { maxRdAtomic = v; return set(QpAttrMask.MAX_QP_RD_ATOMIC); }
    public AhAttr altPath() { return altPath; }
    public QpAttr altPath(AhAttr v) { altPath = v; return set(QpAttrMask.ALT_PATH); }
    /** RNR NAK timer code (0..31) this QP sends as a responder. */
    public int minRnrTimer() { return minRnrTimer; }
    public QpAttr minRnrTimer(int v) { minRnrTimer = v; return set(QpAttrMask.MIN_RNR_TIMER); }
    public int sqPsn() { return sqPsn; }
    public QpAttr sqPsn(int v) { sqPsn = v; return set(QpAttrMask.SQ_PSN); }
    /** Responder resources: incoming RDMA READ/atomic this QP accepts. */
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    public QpAttr maxDestRdAtomic(int v) { maxDestRdAtomic = v; return set(QpAttrMask.MAX_DEST_RD_ATOMIC); }
    public int pathMigState() { return pathMigState; }
    public QpAttr pathMigState(int v) { pathMigState = v; return set(QpAttrMask.PATH_MIG_STATE); }
    public QpCap cap() { return cap; }
    public QpAttr cap(QpCap v) { cap = v; return set(QpAttrMask.CAP); }
    public int destQpNum() { return destQpNum; }
    public QpAttr destQpNum(int v) { destQpNum = v; return set(QpAttrMask.DEST_QPN); }

    @Override
    public String toString() {
        return "QpAttr" + mask + (state == null ? "" : "{state=" + state + "}");
    }
}
